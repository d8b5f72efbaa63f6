// Two gateways on one database, each sampling its metrics every second into the embedded metrics
// store: the database's shared series (the ingestion counters) are written by one of them only, the
// holder of the sampler's lease, without an `instance` label; each still writes its own figures under
// its `instance`. Killed with SIGKILL, the holder's lease goes to the other at its next sampling.
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import supertest from 'supertest';
import { envelope } from '../support/api.js';
import { buildGateway, exited, startChildGateway, type ChildGateway } from '../support/child-gateway.js';
import { seedDataset, sleep } from '../support/datasets.js';
import { createTestDatabase, type TestGateway } from '../support/gateway.js';

const INTERVAL_MS = 1_000;
const DATASET = 'lease_events';
const ENV = { METRICS_SAMPLE_INTERVAL_SECONDS: String(INTERVAL_MS / 1000), ALERT_EVALUATION_TICK_SECONDS: '0', LOG_LEVEL: 'info' };

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;
const copies: ChildGateway[] = [];

beforeAll(async () => {
  buildGateway();
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
  for (let index = 0; index < 2; index += 1) copies.push(await startChildGateway(database.url, ENV, { compiled: true }));
}, 120_000);
afterAll(async () => {
  for (const copy of copies) if (copy.process.exitCode === null && copy.process.signalCode === null) copy.process.kill('SIGKILL');
  await Promise.all(copies.map((copy) => exited(copy.process)));
  await pool?.end();
  await database?.drop();
});

const instanceOf = (copy: ChildGateway) => `${os.hostname()}:${new URL(copy.url).port}`;

/** This copy's count of shared samplings written, from its GET /metrics. */
async function sharedSamplings(copy: ChildGateway): Promise<number> {
  const text = await (await fetch(`${copy.url}/metrics`)).text();
  const line = text.split('\n').find((entry) => entry.startsWith('gateway_metrics_shared_samplings_total '));
  return Number(line?.split(' ')[1] ?? NaN);
}

/** The stored samples of the dataset's accepted-calls series: when each was taken and what it said, oldest first. */
async function acceptedSamples(): Promise<{ atMs: number; value: number; labels: Record<string, string> }[]> {
  const result = await pool.query<{ at_ms: string; value: number; labels: Record<string, string> }>(
    `SELECT s.at_ms, s.value, m.labels FROM metric_samples s JOIN metric_series m ON m.id = s.series_id
      WHERE m.name = 'gateway_ingestion_requests_total' AND m.labels->>'dataset' = $1 AND m.labels->>'outcome' = 'accepted' ORDER BY s.at_ms`,
    [DATASET],
  );
  return result.rows.map((row) => ({ atMs: Number(row.at_ms), value: row.value, labels: row.labels }));
}

async function ingest(copy: ChildGateway, msgid: string): Promise<void> {
  const response = await fetch(`${copy.url}/v2/data/in/${DATASET}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...envelope('api.data.in', undefined, msgid), data: { id: msgid } }),
  });
  expect(response.status).toBe(200);
}

async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 20_000): Promise<T> {
  for (const deadline = Date.now() + timeoutMs; ; await sleep(200)) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)} after ${timeoutMs} ms`);
  }
}

describe('the metrics sampler of two gateways on one database', () => {
  it('writes the shared series from one gateway only, and moves to the other within one interval when the holder is killed', async () => {
    await seedDataset({ http: supertest(copies[0]!.url) } as TestGateway, DATASET, 'Live', { dedup_config: { drop_duplicates: false }, validation_config: { validate: false } });
    await ingest(copies[1]!, 'lease-1');
    const samples = await waitFor(acceptedSamples, (rows) => rows.filter((row) => row.value === 1).length >= 3, 'samplings of the shared series');
    // One series for the database (no instance label), counting the call made through the second copy.
    const labelSets = new Map(samples.map((row) => [JSON.stringify(Object.entries(row.labels).sort()), row.labels]));
    expect([...labelSets.values()]).toEqual([{ __name__: 'gateway_ingestion_requests_total', job: 'gateway', dataset: DATASET, outcome: 'accepted' }]);

    const counts = await Promise.all(copies.map(sharedSamplings));
    expect(counts.filter((count) => count > 0)).toHaveLength(1);
    const holderIndex = counts.findIndex((count) => count > 0);
    const [holder, other] = [copies[holderIndex]!, copies[1 - holderIndex]!];
    expect(holder.output()).toContain(`metrics sampler: ${instanceOf(holder)} (this gateway) now samples the shared series`);
    expect(other.output()).toContain(`the shared series are sampled by ${instanceOf(holder)}`);
    // Each gateway's own figures are still written, under its instance.
    const instances = await pool.query<{ instance: string }>("SELECT DISTINCT labels->>'instance' AS instance FROM metric_series WHERE name = 'gateway_info'");
    expect(instances.rows.map((row) => row.instance).sort()).toEqual(copies.map(instanceOf).sort());

    const lastBeforeKill = (await acceptedSamples()).at(-1)!.atMs;
    holder.process.kill('SIGKILL');
    await exited(holder.process);
    await waitFor(
      () => sharedSamplings(other),
      (count) => count > 0,
      'shared samplings of the surviving gateway',
    );
    expect(other.output()).toContain(`metrics sampler: ${instanceOf(other)} (this gateway) now samples the shared series`);
    const after = (await acceptedSamples()).filter((row) => row.atMs > lastBeforeKill);
    // Taken over at the next sampling, or the one after when the kill fell between a sampling's time and its write.
    expect(after[0]!.atMs - lastBeforeKill).toBeLessThanOrEqual(2 * INTERVAL_MS);
    // The series goes on from the shared counters: no reset, and the next call is counted on top.
    expect(after.every((row) => row.value === 1)).toBe(true);
    await ingest(other, 'lease-2');
    await waitFor(acceptedSamples, (rows) => rows.at(-1)?.value === 2, 'the second call in the shared series');
  }, 90_000);
});
