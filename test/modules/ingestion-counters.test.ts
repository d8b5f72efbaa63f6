// The ingestion counters live in PostgreSQL and describe the traffic of every gateway on the
// database for any dataset id a caller names, so they must not grow without bound when callers name
// ids that do not exist, and two gateways counting at once lose no count.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { createLogger } from '../../src/logger.js';
import { IngestionCounters } from '../../src/modules/ingestion/counters.js';
import { createIngestionCounterStore } from '../../src/modules/ingestion/store.js';
import { createTestDatabase } from '../support/gateway.js';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;
beforeAll(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 8 });
});
afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

const counters = (maxRefusedOnly?: number) => new IngestionCounters(createIngestionCounterStore(pool, maxRefusedOnly === undefined ? {} : { maxRefusedOnly }), createLogger('silent'));

describe('ingestion counters in the shared store', () => {
  it('reading the counts of an id never seen answers zeros and stores nothing', async () => {
    const reader = counters();
    for (let i = 0; i < 20; i++) expect(await reader.snapshot(`ghost-${i}`)).toEqual({ requests: 0, received: 0, processed: 0, duplicates: 0, failed: 0, rejectedRequests: 0 });
    expect((await pool.query("SELECT count(*)::int AS n FROM ingestion_counters WHERE dataset_id LIKE 'ghost-%'")).rows[0].n).toBe(0);
  });

  it('two gateways counting the same dataset at once lose no count, and each reads the sum', async () => {
    const [first, second] = [counters(), counters()];
    await Promise.all(Array.from({ length: 40 }, (_, call) => (call % 2 === 0 ? first : second).recordAccepted('shared', { accepted: 3, processed: 2, duplicates: 1, failed: 0 })));
    await second.recordRejected('shared');
    const expected = { requests: 40, received: 120, processed: 80, duplicates: 40, failed: 0, rejectedRequests: 1 };
    expect(await first.snapshot('shared')).toEqual(expected);
    expect(await second.snapshot('shared')).toEqual(expected);
    expect(await first.requestTotals('shared')).toEqual({ dataset: 40, all: 40 });
  });

  it('keeps at most the configured number of ids that were only ever refused, dropping the oldest; counted datasets stay', async () => {
    const bounded = counters(3);
    const store = createIngestionCounterStore(pool, { maxRefusedOnly: 3 });
    await bounded.recordAccepted('live-a', { accepted: 5 });
    for (let i = 1; i <= 5; i++) {
      await bounded.recordRejected(`guess-${i}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(await store.trimRefusedOnly()).toBe(2);
    expect((await bounded.snapshot('guess-1')).rejectedRequests).toBe(0);
    expect((await bounded.snapshot('guess-2')).rejectedRequests).toBe(0);
    expect((await bounded.snapshot('guess-5')).rejectedRequests).toBe(1);
    expect(await bounded.snapshot('live-a')).toMatchObject({ requests: 1, received: 5 });
  });

  it('a call tallied with its events is counted from that statement on, before and after folds, and two gateways folding at once move each call once', async () => {
    const [first, second] = [createIngestionCounterStore(pool), createIngestionCounterStore(pool)];
    const reader = counters();
    const tallied = (store: typeof first, outcome: { accepted: number; processed: number; duplicates: number; failed: number }) =>
      pool.query(`WITH tallied AS (${store.tally.statement('$1')}) SELECT 1`, [JSON.stringify([store.tally.value('tallied', outcome)])]);
    await Promise.all(Array.from({ length: 60 }, (_, call) => tallied(call % 2 === 0 ? first : second, { accepted: 4, processed: 2, duplicates: 1, failed: 1 })));
    await reader.recordRejected('tallied');
    const expected = { requests: 60, received: 240, processed: 120, duplicates: 60, failed: 60, rejectedRequests: 1 };
    expect(await reader.snapshot('tallied')).toEqual(expected);

    // Folds while more calls are tallied: every call is counted once, whichever table holds it.
    const [moved] = await Promise.all([
      Promise.all([first.fold(), second.fold(), first.fold()]),
      ...Array.from({ length: 20 }, () => tallied(second, { accepted: 1, processed: 1, duplicates: 0, failed: 0 })),
    ]);
    const afterFolds = { ...expected, requests: 80, received: 260, processed: 140 };
    expect(await reader.snapshot('tallied')).toEqual(afterFolds);
    const movedAfter = await first.fold();
    expect(moved.reduce((sum, n) => sum + n, 0) + movedAfter).toBe(80);
    expect((await pool.query("SELECT count(*)::int AS n FROM ingestion_counter_deltas WHERE dataset_id = 'tallied'")).rows[0].n).toBe(0);
    expect(await reader.snapshot('tallied')).toEqual(afterFolds);
    expect((await reader.requestTotals('tallied')).dataset).toBe(80);
    expect((await reader.sharedSeries()).find((sample) => sample.labels.dataset === 'tallied' && sample.labels.outcome === 'accepted')?.value).toBe(80);
  });
});
