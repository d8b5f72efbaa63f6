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
});
