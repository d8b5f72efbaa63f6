// Ingestion (contract 4.2, 7; issue 5) into the embedded event store, written once for both
// transports: what is stored for valid events, the data, text and nesting refused (writing
// nothing), datasets that cannot take events, processing (dedup, validation, batch extraction, event
// time, master datasets and denormalisation), a request that fails writing nothing, and the
// counters. Each run's gateway has small ingestion limits (INGEST_LIMITS_ENV), which no other
// scenario comes near. The scenarios of one transport share a database: every scenario uses dataset
// ids, msgids and event ids of its own.
import { beforeAll, describe, expect, it } from '@jest/globals';
import { denormField, seedDataset, seedMaster, type Json } from '../support/datasets.js';
import { failedEvents, INGESTED_MESSAGE, ingestionStats, largeEvents, storeCounts, storedEvents, STRICT_SCHEMA, unique } from '../support/ingestion.js';
import { expectFailure, expectOk, type Outcome, type SuiteContext } from './harness.js';

/** At most 5 events and 64 kB per ingest call, 16 kB for any other call. */
export const INGEST_LIMITS_ENV = { INGEST_MAX_BATCH: '5', INGEST_BODY_LIMIT: '64kb', REQUEST_BODY_LIMIT: '16kb' };

/** What happened to a call's events: GraphQL's payload, REST's x-ingest-outcome and x-events-* headers. */
export interface IngestCounts {
  outcome: 'PROCESSED' | 'QUEUED';
  accepted: number;
  processed: number | null;
  duplicates: number | null;
  failed: number | null;
}

/** One event processing did not store; GraphQL names each, REST only counts them. */
export interface IngestRefusal {
  index: number;
  item: number | null;
  stage: 'EXTRACTION' | 'VALIDATION' | 'DEDUP' | 'MASTER';
  reason: string;
}

export interface IngestionDriver {
  ingest(datasetId: string, data: unknown, msgid: string): Promise<Outcome<{ message: string; counts: IngestCounts; refused?: IngestRefusal[] | null }>>;
}

/**
 * Ingestion's lookups are 404s with responseCode BAD_REQUEST on REST, as the contract shows them
 * (rest/ingestion.ts errorPresentation); GraphQL shows each code's own kind from the catalogue.
 */
export const INGESTION_KINDS = { DATASET_NOT_FOUND: { kind: 'BAD_REQUEST', status: 404 }, TOPIC_NOT_FOUND: { kind: 'BAD_REQUEST', status: 404 } };

const EVENTS = 'ingest_events';
const INVALID = 'DATA_INGESTION_INVALID_INPUT';

export function ingestionScenarios(ctx: SuiteContext<IngestionDriver>): void {
  beforeAll(async () => {
    await seedDataset(ctx.gw, EVENTS, 'Live');
  });

  /**
   * Ingests and expects the success answer with these counts (both transports tell them; the embedded
   * event store processes in the call, so the outcome is PROCESSED). Returns the refused events where
   * the transport names them (GraphQL), else undefined.
   */
  const ingestOk = async (datasetId: string, data: unknown, msgid: string, counts: Partial<IngestCounts> = {}) => {
    const { message, counts: told, refused, ...rest } = expectOk(await ctx.driver.ingest(datasetId, data, msgid));
    expect({ message, rest }).toEqual({ message: INGESTED_MESSAGE, rest: {} });
    expect(told).toMatchObject({ outcome: 'PROCESSED', ...counts });
    if (refused === undefined) return undefined;
    // Every event not stored is named once: the failed ones and the duplicates.
    expect(refused).toHaveLength(told.failed! + told.duplicates!);
    return refused;
  };
  /** The call is refused with `code` and a message matching `message`, and nothing is written. */
  const expectRefused = async (datasetId: string, data: unknown, msgid: string, code: string, message: RegExp) => {
    const before = await storeCounts(ctx.gw);
    expectFailure(await ctx.driver.ingest(datasetId, data, msgid), code, message);
    expect(await storeCounts(ctx.gw)).toEqual(before);
  };
  const stored = async (msgid: string) => (await storedEvents(ctx.gw, msgid)).map((row) => row.payload);
  const failed = (msgid: string) => failedEvents(ctx.gw, msgid);
  /** A Live event dataset with these definition overrides (see test/support/datasets.ts). */
  const liveDataset = async (label: string, overrides: Json = {}) => {
    const id = `ingest_${label}`;
    await seedDataset(ctx.gw, id, 'Live', overrides);
    return id;
  };

  describe('valid events', () => {
    it('stores one event and answers "Data ingested successfully", once the row is in the store', async () => {
      const msgid = unique('single');
      const event = { id: unique('e'), ts: '2026-01-02T03:04:05.000Z', amount: 12.5, nested: { a: [1, 2] } };
      await ingestOk(EVENTS, event, msgid, { accepted: 1, processed: 1, duplicates: 0, failed: 0 });
      const rows = await storedEvents(ctx.gw, msgid);
      expect(rows.map((row) => [row.dataset_id, row.msgid, row.payload])).toEqual([[EVENTS, msgid, event]]);
    });

    it('stores every event of a batch, in order, under the request msgid', async () => {
      const msgid = unique('batch');
      const events = [1, 2, 3].map((n) => ({ id: unique(`b${n}`), ts: `2026-01-0${n}T00:00:00.000Z`, amount: n }));
      const refused = await ingestOk(EVENTS, events, msgid, { accepted: 3, processed: 3, duplicates: 0, failed: 0 });
      if (refused) expect(refused).toEqual([]);
      expect(await stored(msgid)).toEqual(events);
      expect(await failed(msgid)).toEqual([]);
    });

    it('takes a batch of exactly the configured maximum (INGEST_MAX_BATCH=5)', async () => {
      const msgid = unique('max');
      await ingestOk(
        EVENTS,
        [1, 2, 3, 4, 5].map((n) => ({ id: unique(`m${n}`), amount: n })),
        msgid,
        { accepted: 5 },
      );
      expect(await stored(msgid)).toHaveLength(5);
    });

    it('takes an ingest body larger than the general request limit, up to INGEST_BODY_LIMIT (16 kB < 40 kB < 64 kB)', async () => {
      const msgid = unique('large');
      const events = largeEvents(2, 20_000);
      await ingestOk(EVENTS, events, msgid);
      expect(await stored(msgid)).toEqual(events);
    });

    it('ingests into the Live version of a dataset that also has a Draft being edited', async () => {
      await seedDataset(ctx.gw, 'ingest_live_with_draft', 'LiveWithDraft');
      const msgid = unique('lwd');
      await ingestOk('ingest_live_with_draft', { id: unique('e') }, msgid);
      expect(await stored(msgid)).toHaveLength(1);
    });

    it('stores huge and tiny numbers as JSON numbers', async () => {
      const msgid = unique('numbers');
      await ingestOk(EVENTS, { id: unique('e'), big: 1e308, small: -1e-308, long: Number.MAX_SAFE_INTEGER }, msgid);
      expect((await stored(msgid))[0]).toMatchObject({ big: 1e308, small: -1e-308, long: Number.MAX_SAFE_INTEGER });
    });

    it('stores an event nested 32 objects deep, and a batch of them', async () => {
      let event: Json = { id: unique('e') };
      for (let i = 1; i < 32; i++) event = { n: event };
      const msgid = unique('deep-ok');
      await ingestOk(EVENTS, [event, event], msgid);
      expect(await stored(msgid)).toHaveLength(2);
    });
  });

  describe('data that is not events: DATA_INGESTION_INVALID_INPUT naming the path, and nothing written', () => {
    it.each<[string, () => unknown, RegExp]>([
      // The service's rule (issue 34; REST's schema held the type before): one message on both transports.
      ['a string', () => 'an event', /^data must be one event object or an array of event objects$/],
      ['a number', () => 42, /^data must be one event object or an array of event objects$/],
      ['a boolean', () => true, /^data must be one event object or an array of event objects$/],
      ['a batch holding a non-object item', () => [{ id: unique('e') }, 'not an event'], /data\/1/],
      ['a batch holding a nested array item', () => [[{ id: unique('e') }]], /data\/0/],
      ['a batch holding null', () => [{ id: unique('e') }, { id: unique('e') }, null], /data\/2/],
      ['an empty batch', () => [], /data/],
    ])('refuses data that is %s', async (_label, make, message) => {
      await expectRefused(EVENTS, make(), unique('bad'), INVALID, message);
    });

    it('refuses a batch over INGEST_MAX_BATCH (6 events where 5 fit) naming data and the limit', async () => {
      await expectRefused(
        EVENTS,
        [1, 2, 3, 4, 5, 6].map((n) => ({ id: unique(`o${n}`) })),
        unique('over'),
        INVALID,
        /data.*\b5\b/,
      );
    });
  });

  describe('text or nesting the store cannot hold: refused, and nothing written', () => {
    it.each<[string, () => unknown, RegExp]>([
      ['a NUL in a string value', () => ({ id: unique('e'), note: 'a\u0000b' }), /^data\/note holds a NUL/],
      ['a NUL in a key', () => ({ id: unique('e'), ['k\u0000']: 1 }), /^data\/k\\u0000 holds a NUL/],
      ['a NUL deep in a batch item', () => [{ id: unique('e') }, { id: unique('e'), deep: { list: ['ok', '\u0000'] } }], /^data\/1\/deep\/list\/1 holds a NUL/],
      ['an event nested 33 objects deep', () => Array.from({ length: 32 }).reduce<Json>((inner) => ({ n: inner }), { id: unique('e') }), /^data\/n\/n.* is nested deeper than 32 levels$/],
    ])('refuses data with %s with DATA_INGESTION_INVALID_INPUT naming the path', async (_label, make, message) => {
      await expectRefused(EVENTS, make(), unique('nul'), INVALID, message);
    });

    it.each([
      ['holding a NUL', () => `m\u0000${unique('nul')}`, /msgid.*NUL/],
      ['of 257 characters (256 fit)', () => 'm'.repeat(257), /^msgid is 257 characters long; at most 256 are allowed$/],
    ])('refuses a msgid %s with DATA_INGESTION_INVALID_INPUT', async (_label, make, message) => {
      await expectRefused(EVENTS, { id: unique('e') }, make(), INVALID, message);
    });

    // REST wanted at least one character (issue 34: the original's schema, and GraphQL, take any text): an empty msgid is none.
    it('takes an empty msgid as none, keeping the events under a fresh one', async () => {
      const id = unique('e');
      await ingestOk(EVENTS, { id }, '');
      const rows = await ctx.gw.sql<{ msgid: string }>(`SELECT msgid FROM events WHERE payload ->> 'id' = $1`, [id]);
      expect(rows.rows.map((row) => row.msgid)).toEqual([expect.stringMatching(/^[0-9a-f-]{36}$/)]);
    });

    it('refuses a dataset id longer than any dataset has (200 characters) with DATA_INGESTION_INVALID_INPUT', async () => {
      await expectRefused('d'.repeat(201), { id: unique('e') }, unique('long'), INVALID, /^datasetId is 201 characters long; at most 200 are allowed$/);
    });

    it('answers a dataset id holding a NUL as an unknown dataset (DATASET_NOT_FOUND)', async () => {
      await expectRefused(`${EVENTS}\u0000`, { id: unique('e') }, unique('nulid'), 'DATASET_NOT_FOUND', /not found/);
    });
  });

  describe('a dataset that cannot take events: refused, and nothing written', () => {
    it('answers an unknown dataset with DATASET_NOT_FOUND naming it', async () => {
      await expectRefused('ingest_no_such_dataset', { id: unique('e') }, unique('ghost'), 'DATASET_NOT_FOUND', /ingest_no_such_dataset/);
    });

    it.each([
      ['NULL', null],
      ["''", ''],
    ])('answers a Live dataset whose entry topic is %s with TOPIC_NOT_FOUND', async (label, topic) => {
      const id = await liveDataset(`no_topic_${label === 'NULL' ? 'null' : 'empty'}`);
      await ctx.gw.sql('UPDATE datasets SET entry_topic = $2 WHERE dataset_id = $1', [id, topic]);
      const configTopic = await ctx.gw.sql<{ topic: unknown }>(`SELECT dataset_config::jsonb -> 'entry_topic' AS topic FROM datasets WHERE dataset_id = $1`, [id]);
      expect(configTopic.rows[0]?.topic ?? null).toBeNull();
      await expectRefused(id, { id: unique('e') }, unique('notopic'), 'TOPIC_NOT_FOUND', /[Ee]ntry topic/);
    });

    it.each(['Draft', 'ReadyToPublish', 'Retired'] as const)('refuses a %s dataset with DATASET_NOT_FOUND naming it', async (state) => {
      const id = `ingest_state_${state.toLowerCase()}`;
      await seedDataset(ctx.gw, id, state);
      await expectRefused(id, { id: unique('e') }, unique(state), 'DATASET_NOT_FOUND', new RegExp(id));
    });
  });

  describe('processing: dedup', () => {
    let dedup: string;
    beforeAll(async () => {
      dedup = await liveDataset('dedup', { dedup_config: { drop_duplicates: true, dedup_key: 'id', dedup_period: 3600 } });
    });

    it('keeps a second event with the same dedup key within the period as failed at stage dedup, still answering success', async () => {
      const key = unique('dup');
      const first = unique('first');
      await ingestOk(dedup, { id: key, amount: 1 }, first);
      const second = unique('second');
      const refused = await ingestOk(dedup, { id: key, amount: 2 }, second, { accepted: 1, processed: 0, duplicates: 1, failed: 0 });
      if (refused) expect(refused).toEqual([{ index: 0, item: null, stage: 'DEDUP', reason: expect.stringContaining(key) }]);

      expect(await stored(first)).toEqual([{ id: key, amount: 1 }]);
      expect(await stored(second)).toEqual([]);
      const rows = await failed(second);
      expect(rows.map((row) => [row.dataset_id, row.stage, row.payload])).toEqual([[dedup, 'dedup', { id: key, amount: 2 }]]);
      expect(rows[0]!.reason).toContain(key);
    });

    it('accepts the same dedup key again once the period has passed', async () => {
      const key = unique('later');
      await ingestOk(dedup, { id: key, amount: 1 }, unique('first'));
      await ctx.gw.sql(`UPDATE event_dedup SET seen_at = now() - interval '3601 seconds' WHERE dataset_id = $1 AND dedup_key = $2`, [dedup, key]);
      const again = unique('again');
      await ingestOk(dedup, { id: key, amount: 3 }, again, { processed: 1, duplicates: 0 });
      expect(await stored(again)).toEqual([{ id: key, amount: 3 }]);
      expect(await failed(again)).toEqual([]);

      // ... and the period starts again from that event.
      const third = unique('third');
      await ingestOk(dedup, { id: key, amount: 4 }, third, { processed: 0, duplicates: 1 });
      expect(await stored(third)).toEqual([]);
      expect((await failed(third)).map((row) => row.stage)).toEqual(['dedup']);
    });

    it('keeps the repeats of a key inside one batch as duplicates and stores the first', async () => {
      const [a, b] = [unique('a'), unique('b')];
      const msgid = unique('inbatch');
      const events = [
        { id: a, amount: 1 },
        { id: b, amount: 2 },
        { id: a, amount: 3 },
      ];
      const refused = await ingestOk(dedup, events, msgid, { accepted: 3, processed: 2, duplicates: 1, failed: 0 });
      if (refused) expect(refused).toEqual([{ index: 2, item: null, stage: 'DEDUP', reason: expect.stringContaining(a) }]);
      expect(await stored(msgid)).toEqual(events.slice(0, 2));
      expect((await failed(msgid)).map((row) => [row.stage, row.payload])).toEqual([['dedup', events[2]]]);
    });

    it('stores exactly one of several concurrent requests carrying the same dedup key', async () => {
      const key = unique('race');
      const msgids = [1, 2, 3, 4, 5].map((n) => unique(`race${n}`));
      await Promise.all(msgids.map((msgid, n) => ingestOk(dedup, { id: key, amount: n }, msgid)));
      const rows = await ctx.gw.sql<{ stored: number; duplicates: number }>(
        `SELECT (SELECT count(*)::int FROM events WHERE msgid = ANY($1)) AS stored,
                (SELECT count(*)::int FROM failed_events WHERE msgid = ANY($1) AND stage = 'dedup') AS duplicates`,
        [msgids],
      );
      expect(rows.rows[0]).toEqual({ stored: 1, duplicates: 4 });
    });

    it('reads the dedup key at a dotted path', async () => {
      const id = await liveDataset('dedup_dotted', { dedup_config: { drop_duplicates: true, dedup_key: 'meta.key', dedup_period: 3600 } });
      const key = unique('k');
      const msgid = unique('dotted');
      await ingestOk(
        id,
        [
          { id: unique('e'), meta: { key } },
          { id: unique('e'), meta: { key } },
          { id: unique('e'), meta: { key: unique('other') } },
        ],
        msgid,
      );
      expect(await stored(msgid)).toHaveLength(2);
      expect((await failed(msgid)).map((row) => row.stage)).toEqual(['dedup']);
    });

    it('stores every repeat when the dataset does not drop duplicates', async () => {
      const id = await liveDataset('no_dedup', { dedup_config: { drop_duplicates: false, dedup_key: 'id', dedup_period: 3600 } });
      const key = unique('same');
      const first = unique('first');
      await ingestOk(id, [{ id: key }, { id: key }], first, { processed: 2, duplicates: 0 });
      const second = unique('second');
      await ingestOk(id, { id: key }, second);
      expect(await stored(first)).toHaveLength(2);
      expect(await stored(second)).toHaveLength(1);
      expect([...(await failed(first)), ...(await failed(second))]).toEqual([]);
    });
  });

  describe('processing: validation against data_schema', () => {
    it('tells a batch with one event that fails the schema: 4 stored, 1 failed, and (GraphQL) its position and a reason naming the field', async () => {
      const id = await liveDataset('strict_told', { data_schema: STRICT_SCHEMA, validation_config: { validate: true, mode: 'Strict' } });
      const msgid = unique('told');
      const events = [1, 2, 3, 4, 5].map((n) => ({ id: unique(`t${n}`), amount: n === 3 ? 'three' : n }));
      const refused = await ingestOk(id, events, msgid, { accepted: 5, processed: 4, duplicates: 0, failed: 1 });
      if (refused) expect(refused).toEqual([{ index: 2, item: null, stage: 'VALIDATION', reason: expect.stringMatching(/^\/amount must be number$/) }]);
      // What the answer said is what the store holds.
      expect(await stored(msgid)).toEqual(events.filter((_, n) => n !== 2));
      expect((await failed(msgid)).map((row) => [row.stage, row.payload])).toEqual([['validation', events[2]]]);
    });

    it('tells a single event that lacks a required field: nothing stored, 1 failed, the reason naming the field', async () => {
      const id = await liveDataset('strict_single', { data_schema: STRICT_SCHEMA, validation_config: { validate: true, mode: 'Strict' } });
      const refused = await ingestOk(id, { amount: 1 }, unique('told1'), { accepted: 1, processed: 0, duplicates: 0, failed: 1 });
      if (refused) expect(refused).toEqual([{ index: 0, item: null, stage: 'VALIDATION', reason: expect.stringContaining("required property 'id'") }]);
    });

    it('keeps events that fail Strict validation at stage validation with a reason naming the field, and stores the valid ones', async () => {
      const id = await liveDataset('strict', { data_schema: STRICT_SCHEMA, validation_config: { validate: true, mode: 'Strict' } });
      const msgid = unique('strict');
      const good = { id: unique('good'), amount: 1 };
      const wrongType = { id: unique('type'), amount: 'ten' };
      const newField = { id: unique('new'), colour: 'red' };
      const refused = await ingestOk(id, [good, wrongType, newField], msgid, { accepted: 3, processed: 1, duplicates: 0, failed: 2 });
      if (refused)
        expect(refused.map((r) => [r.index, r.stage, r.reason])).toEqual([
          [1, 'VALIDATION', expect.stringMatching(/amount/)],
          [2, 'VALIDATION', expect.stringMatching(/colour/)],
        ]);

      expect(await stored(msgid)).toEqual([good]);
      const rows = await failed(msgid);
      expect(rows.map((row) => [row.stage, row.payload])).toEqual([
        ['validation', wrongType],
        ['validation', newField],
      ]);
      expect(rows[0]!.reason).toMatch(/amount/);
      expect(rows[1]!.reason).toMatch(/colour/);
    });

    it('lets unknown fields through with IgnoreNewFields, but still refuses a wrong type', async () => {
      const id = await liveDataset('ignore_new', { data_schema: STRICT_SCHEMA, validation_config: { validate: true, mode: 'IgnoreNewFields' } });
      const msgid = unique('ignore');
      const newField = { id: unique('new'), colour: 'red', amount: 2 };
      const wrongType = { id: unique('type'), amount: 'ten' };
      await ingestOk(id, [newField, wrongType], msgid, { processed: 1, failed: 1 });
      expect(await stored(msgid)).toEqual([newField]);
      const rows = await failed(msgid);
      expect(rows.map((row) => row.stage)).toEqual(['validation']);
      expect(rows[0]!.reason).toMatch(/amount/);
    });

    it('stores events of any shape when validation is off', async () => {
      const id = await liveDataset('no_validation', { data_schema: STRICT_SCHEMA, validation_config: { validate: false, mode: 'Strict' } });
      const msgid = unique('novalid');
      const events = [{ id: unique('a'), amount: 'ten' }, { colour: 'red' }];
      await ingestOk(id, events, msgid, { processed: 2, failed: 0 });
      expect(await stored(msgid)).toEqual(events);
    });
  });

  describe('processing: batch extraction (is_batch_event)', () => {
    let batched: string;
    beforeAll(async () => {
      batched = await liveDataset('batch_events', {
        extraction_config: { is_batch_event: true, extraction_key: 'events' },
        validation_config: { validate: false },
        dedup_config: { drop_duplicates: false },
      });
    });

    it('splits an event that carries an array under the extraction key into its items', async () => {
      const msgid = unique('extract');
      const items = [{ id: unique('x1') }, { id: unique('x2') }, { id: unique('x3') }];
      await ingestOk(batched, [{ events: items.slice(0, 2) }, { events: items.slice(2) }], msgid);
      expect(await stored(msgid)).toEqual(items);
    });

    it('keeps an extracted item that is not an object as failed at stage extraction, with the reason', async () => {
      const msgid = unique('extractbad');
      const good = { id: unique('ok') };
      const refused = await ingestOk(batched, [{ id: unique('plain') }, { events: [good, 'not an event'] }], msgid, { accepted: 3, processed: 2, failed: 1 });
      if (refused) expect(refused).toEqual([{ index: 1, item: 1, stage: 'EXTRACTION', reason: expect.stringMatching(/object/) }]);
      expect((await stored(msgid)).slice(1)).toEqual([good]);
      const rows = await failed(msgid);
      expect(rows.map((row) => [row.stage, row.payload])).toEqual([['extraction', 'not an event']]);
      expect(rows[0]!.reason).toMatch(/object/);
    });
  });

  describe('processing: event time', () => {
    let times: string;
    beforeAll(async () => {
      times = await liveDataset('times', {
        data_schema: {
          properties: {
            meta: { type: 'object', arrival_format: 'object', data_type: 'object', properties: { event: { type: 'object', properties: { ts: { type: ['string', 'number'] } } } } },
          },
        },
        dataset_config: { keys_config: { timestamp_key: 'meta.event.ts' } },
      });
    });

    it('takes the event time from a dotted timestamp key, as ISO text, epoch seconds or epoch milliseconds', async () => {
      const msgid = unique('times');
      const iso = '2025-06-01T10:20:30.456Z';
      await ingestOk(
        times,
        [
          { id: unique('iso'), meta: { event: { ts: iso } } },
          { id: unique('sec'), meta: { event: { ts: 1_700_000_000 } } },
          { id: unique('ms'), meta: { event: { ts: 1_700_000_000_123 } } },
          { id: unique('mstext'), meta: { event: { ts: '1700000000123' } } },
        ],
        msgid,
      );
      expect((await storedEvents(ctx.gw, msgid)).map((row) => row.event_ms)).toEqual([Date.parse(iso), 1_700_000_000_000, 1_700_000_000_123, 1_700_000_000_123]);
    });

    it('uses the arrival time when the event has no value at the timestamp key', async () => {
      const msgid = unique('arrival');
      const before = Date.now();
      await ingestOk(times, [{ id: unique('none') }, { id: unique('other'), meta: { event: {} } }], msgid);
      const after = Date.now();
      const rows = await storedEvents(ctx.gw, msgid);
      expect(rows).toHaveLength(2);
      for (const row of rows) {
        expect(row.event_ms).toBe(row.arrival_ms);
        expect(row.arrival_ms).toBeGreaterThanOrEqual(before - 1000);
        expect(row.arrival_ms).toBeLessThanOrEqual(after + 1000);
      }
    });
  });

  describe('processing: master datasets and denormalisation', () => {
    const MASTER = 'ingest_users';
    let enriched: string;
    beforeAll(async () => {
      await seedMaster(ctx.gw, MASTER);
      enriched = await liveDataset('orders', { denorm_config: { denorm_fields: [denormField(MASTER, 'user')] } });
    });

    async function masterRecord(key: string): Promise<Json | undefined> {
      const rows = await ctx.gw.sql<{ payload: Json }>('SELECT payload FROM master_records WHERE dataset_id = $1 AND record_key = $2', [MASTER, key]);
      return rows.rows[0]?.payload;
    }

    it('upserts a master record by its data_key: the latest event wins, across requests and inside a batch', async () => {
      const [u1, u2] = [unique('u1'), unique('u2')];
      await ingestOk(MASTER, { userid: u1, name: 'Ann' }, unique('m1'));
      expect(await masterRecord(u1)).toEqual({ userid: u1, name: 'Ann' });

      await ingestOk(
        MASTER,
        [
          { userid: u1, name: 'Ann B' },
          { userid: u2, name: 'Bob' },
          { userid: u1, name: 'Ann C' },
        ],
        unique('m2'),
      );
      expect(await masterRecord(u1)).toEqual({ userid: u1, name: 'Ann C' });
      expect(await masterRecord(u2)).toEqual({ userid: u2, name: 'Bob' });
      const count = await ctx.gw.sql<{ n: number }>('SELECT count(*)::int AS n FROM master_records WHERE dataset_id = $1 AND record_key IN ($2, $3)', [MASTER, u1, u2]);
      expect(count.rows[0]!.n).toBe(2);
    });

    it('keeps a master event without a value at data_key as failed, naming the key', async () => {
      const msgid = unique('nokey');
      const refused = await ingestOk(MASTER, [{ name: 'Nobody' }], msgid, { processed: 0, failed: 1 });
      if (refused) expect(refused).toEqual([{ index: 0, item: null, stage: 'MASTER', reason: expect.stringMatching(/data_key/) }]);
      const rows = await failed(msgid);
      expect(rows.map((row) => [row.stage, row.payload])).toEqual([['master', { name: 'Nobody' }]]);
      expect(rows[0]!.reason).toMatch(/data_key/);
    });

    it('adds the master record under denorm_out_field, and null when the master has no record for the key', async () => {
      const known = unique('known');
      await ingestOk(MASTER, { userid: known, name: 'Kim', tier: 'gold' }, unique('master'));
      const msgid = unique('orders');
      await ingestOk(
        enriched,
        [
          { id: unique('o1'), userid: known, amount: 5 },
          { id: unique('o2'), userid: unique('missing'), amount: 6 },
          { id: unique('o3'), amount: 7 },
        ],
        msgid,
      );
      const events = await stored(msgid);
      expect(events.map((event) => event.user)).toEqual([{ userid: known, name: 'Kim', tier: 'gold' }, null, null]);
      expect(events.map((event) => event.amount)).toEqual([5, 6, 7]);
    });
  });

  describe('a request that fails writes nothing', () => {
    it('stores no event of a batch when the store cannot write the failed ones, and a retry after the fault stores them once', async () => {
      const id = await liveDataset('atomic', { data_schema: STRICT_SCHEMA, validation_config: { validate: true, mode: 'Strict' } });
      const good = { id: unique('good'), amount: 1 };
      const bad = { id: unique('bad'), amount: 'not a number' };
      const msgid = unique('atomic');
      const before = await storeCounts(ctx.gw);
      await ctx.gw.sql('ALTER TABLE failed_events ADD CONSTRAINT no_failures CHECK (false) NOT VALID');
      let outcome: Outcome<unknown>;
      try {
        outcome = await ctx.driver.ingest(id, [good, bad], msgid);
      } finally {
        await ctx.gw.sql('ALTER TABLE failed_events DROP CONSTRAINT IF EXISTS no_failures');
      }
      expectFailure(outcome, 'INTERNAL_SERVER_ERROR');
      expect(await storedEvents(ctx.gw, msgid)).toEqual([]);
      expect(await failed(msgid)).toEqual([]);
      expect(await storeCounts(ctx.gw)).toEqual(before);

      // The dedup key the failed request saw is not held against the retry.
      await ingestOk(id, [good, bad], msgid, { processed: 1, duplicates: 0, failed: 1 });
      expect(await stored(msgid)).toEqual([good]);
      expect((await failed(msgid)).map((row) => row.stage)).toEqual(['validation']);
    });
  });

  describe('ingestion counters', () => {
    it('counts requests, events received, processed, duplicates and failures per dataset', async () => {
      const id = await liveDataset('counted', { data_schema: STRICT_SCHEMA, validation_config: { validate: true, mode: 'Strict' } });
      expect(await ingestionStats(ctx.gw, id)).toEqual({ datasetId: id, requests: 0, received: 0, processed: 0, duplicates: 0, failed: 0, rejectedRequests: 0 });

      const [c1, c2] = [unique('c1'), unique('c2')];
      await ingestOk(id, { id: c1 }, unique('count'));
      await ingestOk(id, [{ id: c2 }, { id: c2 }, { id: unique('c3'), amount: 'x' }], unique('count'));
      // Refused data is not an ingest call of the dataset.
      expectFailure(await ctx.driver.ingest(id, [], unique('count')), INVALID);
      expect(await ingestionStats(ctx.gw, id)).toEqual({ datasetId: id, requests: 2, received: 4, processed: 2, duplicates: 1, failed: 1, rejectedRequests: 0 });
    });

    it('a stats read right after an answered call counts it, while other calls to the dataset are under way', async () => {
      const id = await liveDataset('counted_at_once');
      let answered = 0;
      const seen = await Promise.all(
        Array.from({ length: 12 }, async (_, call) => {
          await ingestOk(id, call % 2 === 0 ? { id: unique('e') } : [{ id: unique('e') }, { id: unique('e') }], unique('at-once'));
          const before = ++answered;
          return { before, stats: await ingestionStats(ctx.gw, id) };
        }),
      );
      // Each read counts at least every call answered before it began (its own among them).
      for (const { before, stats } of seen) expect(stats.requests).toBeGreaterThanOrEqual(before);
      expect(await ingestionStats(ctx.gw, id)).toEqual({ datasetId: id, requests: 12, received: 18, processed: 18, duplicates: 0, failed: 0, rejectedRequests: 0 });
    });

    it('counts refused calls of a dataset without an entry topic, and of an unknown dataset', async () => {
      const id = await liveDataset('counted_no_topic');
      await ctx.gw.sql('UPDATE datasets SET entry_topic = NULL WHERE dataset_id = $1', [id]);
      expectFailure(await ctx.driver.ingest(id, { id: unique('e') }, unique('rej')), 'TOPIC_NOT_FOUND');
      expectFailure(await ctx.driver.ingest(id, { id: unique('e') }, unique('rej')), 'TOPIC_NOT_FOUND');
      expect(await ingestionStats(ctx.gw, id)).toMatchObject({ requests: 0, received: 0, rejectedRequests: 2 });

      expectFailure(await ctx.driver.ingest('ingest_counted_ghost', { id: unique('e') }, unique('rej')), 'DATASET_NOT_FOUND');
      expect(await ingestionStats(ctx.gw, 'ingest_counted_ghost')).toMatchObject({ requests: 0, rejectedRequests: 1 });
    });
  });
}
