// Exhaust (the original's GET /v2/data/exhaust/{dataset_id}), written once for both transports: the
// links of a day range download exactly the events of those days, a late event rewrites its day's
// file, and every refusal has its code.
import { gunzipSync } from 'node:zlib';
import { beforeAll, expect, it } from '@jest/globals';
import type { StoreGateway } from '../support/connectors.js';
import { seedDataset, type Json } from '../support/datasets.js';
import { expectFailure, expectOk, type Outcome, type SuiteContext } from './harness.js';

export interface ExhaustAnswer {
  expiresAt: string;
  files: string[];
  periodWiseFiles: Record<string, string[]>;
}

export interface ExhaustDriver {
  exhaust(datasetId: string, query: { type?: 'raw' | 'failed'; from?: string; to?: string; since?: string }): Promise<Outcome<ExhaustAnswer>>;
  ingest(datasetId: string, events: Json[]): Promise<void>;
}

const event = (id: string, day: string, hour = '10') => ({ id, ts: `2026-03-${day}T${hour}:00:00Z`, userid: 'u1', amount: 1 });

/** The events a signed link's file holds (gzipped JSON lines). */
async function download(url: string): Promise<Json[]> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  const text = gunzipSync(Buffer.from(await response.arrayBuffer())).toString('utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Json);
}

export function exhaustScenarios(ctx: SuiteContext<ExhaustDriver, StoreGateway>): void {
  const id = `exhaust-${ctx.transport}`;
  beforeAll(async () => {
    await seedDataset(ctx.gw, id, 'Live');
    await ctx.driver.ingest(id, [event('d1', '01'), event('d2a', '02', '01'), event('d2b', '02', '23'), event('d3', '03'), event('d4', '04')]);
  });

  it("gives one link per day of the range that had events, each downloading exactly that day's events", async () => {
    const answer = expectOk(await ctx.driver.exhaust(id, { from: '2026-03-02', to: '2026-03-04' }));
    expect(Object.keys(answer.periodWiseFiles)).toEqual(['2026-03-02', '2026-03-03', '2026-03-04']);
    expect(answer.files).toEqual(Object.values(answer.periodWiseFiles).flat());
    expect(Date.parse(answer.expiresAt)).toBeGreaterThan(Date.now());
    const ids = async (day: string) => (await download(answer.periodWiseFiles[day]![0]!)).map((row) => row.id);
    expect(await ids('2026-03-02')).toEqual(['d2a', 'd2b']);
    expect(await ids('2026-03-03')).toEqual(['d3']);
    expect(await ids('2026-03-04')).toEqual(['d4']);
  });

  it('writes a day again when an event arrives for it later', async () => {
    await ctx.driver.ingest(id, [event('d3-late', '03', '18')]);
    const answer = expectOk(await ctx.driver.exhaust(id, { from: '2026-03-03', to: '2026-03-03' }));
    expect((await download(answer.files[0]!)).map((row) => row.id)).toEqual(['d3', 'd3-late']);
  });

  it('gives the refused events with their stage and reason for type failed', async () => {
    await ctx.driver.ingest(id, [{ id: 'bad', ts: '2026-03-05T10:00:00Z', userid: 'u1', amount: 'not a number' }]);
    const today = new Date().toISOString().slice(0, 10);
    const answer = expectOk(await ctx.driver.exhaust(id, { type: 'failed', since: 'LAST_1_DAYS' }));
    const [refused] = await download(answer.periodWiseFiles[today]![0]!);
    expect(refused).toMatchObject({ stage: 'validation', reason: expect.stringMatching(/amount/), event: { id: 'bad' } });
  });

  it('refuses a range over 31 days, a malformed day or since, and answers when there is nothing to give', async () => {
    expectFailure(await ctx.driver.exhaust(id, { from: '2026-01-01', to: '2026-03-04' }), 'DATA_EXHAUST_INVALID_INPUT', /31 days/);
    expectFailure(await ctx.driver.exhaust(id, { from: '2026-3-1' }), 'DATA_EXHAUST_INVALID_INPUT', /from must be a day written YYYY-MM-DD/);
    expectFailure(await ctx.driver.exhaust(id, { since: 'yesterday' }), 'DATA_EXHAUST_INVALID_INPUT', /LAST_<n>_DAYS/);
    // Lengths are the service's rules too (issue 34; REST's query schema cut them short before): one message on both transports.
    expectFailure(await ctx.driver.exhaust(id, { from: '2026-03-021', to: '2026-03-04' }), 'DATA_EXHAUST_INVALID_INPUT', /^from must be a day written YYYY-MM-DD \(got "2026-03-021"\)$/);
    expectFailure(await ctx.driver.exhaust(id, { since: 'LAST_1000000_DAYS' }), 'DATA_EXHAUST_INVALID_INPUT', /^since must be LAST_<n>_DAYS \(got "LAST_1000000_DAYS"\)$/);
    expectFailure(await ctx.driver.exhaust(id, { from: '2026-02-01', to: '2026-02-10' }), 'DATA_EXHAUST_NO_FILES', /does not have any backup files/);
    expectFailure(await ctx.driver.exhaust('exhaust-nowhere', { since: 'LAST_2_DAYS' }), 'DATASET_NOT_FOUND', /exhaust-nowhere/);
  });
}
