// The embedded event store's one-statement path (no dedup keys, not a master dataset): requests that
// reach it in the same turn of the event loop share one statement, as a busy gateway's concurrent
// single-event calls do, and each request still gets its own outcome, its own rows and its own
// failure. The store runs on the test gateway's migrated database, through a pool of its own that
// counts what the store sends (the gateway's pool also carries its background work), with the
// ingestion module's real processing rules.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { createIngestionCounterStore, ingestionProcessing } from '../../src/modules/ingestion/index.js';
import { EmbeddedEventStore } from '../../src/platform/event-bus/embedded-store.js';
import type { IngestMessage, PublishOutcome, PublishTally } from '../../src/platform/event-bus/event-bus.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { liveDatasetRecord, storedEvents, unique } from '../support/ingestion.js';

let gw: TestGateway;
let pool: pg.Pool;
let store: EmbeddedEventStore;
/** Statements the store's pool has sent. */
let sent = 0;

const DATASET = liveDatasetRecord('store_batching_events', {
  dataSchema: { type: 'object', properties: { id: { type: 'string' }, ts: { type: 'string' } }, required: ['id'] },
  extractionConfig: { is_batch_event: false },
  validationConfig: { validate: true, mode: 'Strict' },
  dedupConfig: { drop_duplicates: false },
  datasetConfig: { keys_config: { timestamp_key: 'ts' } },
});

function message(msgid: string, event: Record<string, unknown>): IngestMessage {
  return { topic: 'store_batching_events', key: msgid, headers: {}, value: { event, msgid, dataset: DATASET.datasetId, obsrv_meta: { syncts: Date.UTC(2026, 11, 1) } } };
}

/** Publishes every message in one turn of the event loop; the statements the pool sent meanwhile. */
async function publishTogether(messages: IngestMessage[], tally?: PublishTally): Promise<{ outcomes: PromiseSettledResult<PublishOutcome>[]; statements: number }> {
  const before = sent;
  const outcomes = await Promise.allSettled(messages.map((each) => store.publish(each, DATASET, tally)));
  return { outcomes, statements: sent - before };
}

beforeAll(async () => {
  gw = await startTestGateway();
  pool = new pg.Pool({ connectionString: gw.gateway.database.sessionUrl, max: 4 });
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  pool.query = ((...args: unknown[]) => {
    sent += 1;
    return query(...args);
  }) as typeof pool.query;
  store = new EmbeddedEventStore(pool, ingestionProcessing);
});
afterAll(async () => {
  await pool?.end();
  await gw?.stop();
});

describe('the embedded event store, requests of one turn', () => {
  it('stores twenty single-event requests and their counts in one statement, each under its own msgid, time and outcome', async () => {
    const counters = createIngestionCounterStore(pool);
    const msgids = Array.from({ length: 20 }, () => unique('together'));
    const { outcomes, statements } = await publishTogether(
      msgids.map((msgid, n) => message(msgid, { id: msgid, ts: new Date(Date.UTC(2026, 10, 1, 0, n)).toISOString() })),
      counters.tally,
    );
    expect(statements).toBe(1);
    expect((await counters.countsOf([DATASET.datasetId]))[0]).toMatchObject({ requests: 20, received: 20, processed: 20, failed: 0 });
    for (const [n, msgid] of msgids.entries()) {
      expect(outcomes[n]).toEqual({ status: 'fulfilled', value: expect.objectContaining({ accepted: 1, processed: 1, failed: 0, tallied: true }) });
      const stored = await storedEvents(gw, msgid);
      expect(stored).toHaveLength(1);
      expect(stored[0]).toMatchObject({ dataset_id: DATASET.datasetId, payload: { id: msgid }, event_ms: Date.UTC(2026, 10, 1, 0, n), arrival_ms: Date.UTC(2026, 11, 1) });
    }
  });

  it("keeps a request's refused event with its own request, next to others' stored events", async () => {
    const [good, bad] = [unique('good'), unique('bad')];
    const { outcomes, statements } = await publishTogether([message(good, { id: good }), message(bad, { ts: 'no id' })]);
    expect(statements).toBe(1);
    expect(outcomes.map((each) => each.status === 'fulfilled' && each.value.failed)).toEqual([0, 1]);
    expect(await storedEvents(gw, good)).toHaveLength(1);
    const failed = await gw.sql<{ msgid: string; stage: string }>(`SELECT msgid, stage FROM failed_events WHERE msgid = ANY($1::text[])`, [[good, bad]]);
    expect(failed.rows).toEqual([{ msgid: bad, stage: 'validation' }]);
  });

  it('fails only the request the database refuses, and stores the others of its turn', async () => {
    // A msgid longer than the column takes (the ingestion service refuses it before the store; here
    // it stands for any request the database refuses).
    const refused = `${unique('long')}-${'x'.repeat(300)}`;
    const others = [unique('beside'), unique('beside'), unique('beside')];
    const { outcomes, statements } = await publishTogether([message(others[0]!, { id: 'a' }), message(refused, { id: 'b' }), message(others[1]!, { id: 'c' }), message(others[2]!, { id: 'd' })]);
    expect(outcomes.map((each) => each.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect(String((outcomes[1] as PromiseRejectedResult).reason)).toMatch(/too long/);
    // The shared statement, then each request alone.
    expect(statements).toBe(5);
    for (const msgid of others) expect(await storedEvents(gw, msgid)).toHaveLength(1);
    const stored = await gw.sql(`SELECT 1 FROM events WHERE msgid = $1`, [refused]);
    expect(stored.rowCount).toBe(0);
  });

  it('stores a request alone, as before, when nothing else arrives in its turn', async () => {
    const msgid = unique('alone');
    const { outcomes, statements } = await publishTogether([message(msgid, { id: msgid })]);
    expect(statements).toBe(1);
    expect(outcomes[0]).toEqual({ status: 'fulfilled', value: expect.objectContaining({ processed: 1 }) });
    expect(await storedEvents(gw, msgid)).toHaveLength(1);
  });
});
