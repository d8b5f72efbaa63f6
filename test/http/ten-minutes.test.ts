// The README's "Ten minutes with the gateway" runs as written: each fenced block between its
// markers is run verbatim with bash against a fresh gateway (GATEWAY names it), in order, and
// every answer is checked, against what the README shows after the block and against CHECKS. A
// README edit that breaks the tour breaks this test.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { abridged, runExample, shellExamples } from '../support/markdown-examples.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The tour's blocks, each with the answers the README shows for it. */
function tourBlocks() {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const tour = /<!-- ten-minutes:start -->([\s\S]*?)<!-- ten-minutes:end -->/.exec(readme)?.[1];
  if (!tour) throw new Error('README.md has no ten-minutes markers');
  return shellExamples(tour);
}

const ok = (answer: Record<string, any>) => expect({ responseCode: answer.responseCode, error: answer.error }).toEqual({ responseCode: 'OK', error: undefined });
const noErrors = (answer: Record<string, any>) => expect(answer.errors).toBeUndefined();
const CITIES = [
  { city: 'Delhi', orders: 1, revenue: 42 },
  { city: 'Pune', orders: 2, revenue: 200.5 },
];

/** What each step must answer, by its number. */
const CHECKS: Record<string, (results: Record<string, any>[]) => void> = {
  '1.': ([answer]) => {
    ok(answer!);
    expect(answer!.result.data.id).toBe('orders');
  },
  "1'.": ([answer]) => {
    noErrors(answer!);
    expect(answer!.data.importDataset.id).toBe('orders_gql');
  },
  '2.': (results) => {
    expect(results).toHaveLength(2);
    results.forEach(ok);
    expect(results[1]!.result.message).toMatch(/Live/i);
  },
  "2'.": (results) => {
    expect(results).toHaveLength(2);
    results.forEach(noErrors);
  },
  '3.': ([answer]) => ok(answer!),
  "3'.": ([answer]) => {
    noErrors(answer!);
    expect(answer!.data.ingest.message).toBeTruthy();
  },
  '4.': ([answer]) => {
    ok(answer!);
    expect(answer!.result.template_id).toBe('orders_by_city');
  },
  '5.': ([answer]) => {
    ok(answer!);
    expect((answer!.result as Record<string, unknown>[]).map(({ city, orders, revenue }) => ({ city, orders: Number(orders), revenue: Number(revenue) }))).toEqual(CITIES);
  },
  "5'.": ([answer]) => {
    noErrors(answer!);
    expect((answer!.data.runTemplate as Record<string, unknown>[]).map(({ city, orders, revenue }) => ({ city, orders: Number(orders), revenue: Number(revenue) }))).toEqual(CITIES);
  },
  '6.': ([answer]) => {
    ok(answer!);
    const volume = (answer!.result as { category: string; components: { type: string; value: unknown }[] }[]).find((metric) => metric.category === 'data_volume');
    expect(volume?.components.find((component) => component.type === 'events_per_day')?.value).toBe(3);
  },
  "6'.": ([answer]) => {
    noErrors(answer!);
    const volume = (answer!.data.dataset.metrics as { category: string; components: { type: string; value: unknown }[] }[]).find((metric) => metric.category === 'DATA_VOLUME');
    expect(volume?.components.find((component) => component.type === 'EVENTS_PER_DAY')?.value).toBe(3);
  },
};

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => {
  await gw?.stop();
});

describe('README: Ten minutes with the gateway', () => {
  const blocks = tourBlocks();

  it('has a check for every block, and a block for every check', () => {
    expect(blocks.map(({ title }) => title.split(' ')[0])).toEqual(Object.keys(CHECKS));
  });

  it('shows what every block answers', () => {
    expect(blocks.filter(({ shown }) => shown.length === 0).map(({ title }) => title)).toEqual([]);
  });

  it('runs every block as written, in order, and each answer is what the tour says', async () => {
    for (const { title, script, shown } of blocks) {
      const results = await runExample(script, gw.url);
      const step = title.split(' ')[0]!;
      try {
        expect(results).toHaveLength(shown.length);
        results.forEach((answer, index) => expect(answer).toEqual(abridged(shown[index])));
        CHECKS[step]!(results);
      } catch (error) {
        throw new Error(`step "${title}" answered:\n${JSON.stringify(results)}\n${(error as Error).message}`, { cause: error });
      }
    }
  }, 60_000);
});
