// Ingestion over GraphQL: ingest(datasetId, data, msgid) and ingestionStats(datasetId) (contract
// 4.2, 7; issue 5) into the embedded event store. Mirrors test/rest/ingestion.test.ts rule by rule.
// Tests share one database: every test uses dataset ids, msgids and event ids of its own.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { errorCode, graphql, UUID_PATTERN, type GraphQLResponse } from '../support/api.js';
import { denormField, SCHEMA_2020, seedDataset, seedMaster, type Json } from '../support/datasets.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

let gw: TestGateway;
/** A gateway with small ingestion limits: at most 5 events and 64 kB per ingest call, 16 kB for other calls. */
let small: TestGateway;

const EVENTS = 'gql_ingest_events';
const SMALL = 'gql_ingest_small';

beforeAll(async () => {
  [gw, small] = await Promise.all([startTestGateway(), startTestGateway({ INGEST_MAX_BATCH: '5', INGEST_BODY_LIMIT: '64kb', REQUEST_BODY_LIMIT: '16kb' })]);
  await Promise.all([seedDataset(gw, EVENTS, 'Live'), seedDataset(small, SMALL, 'Live')]);
}, 60_000);
afterAll(async () => {
  await Promise.all([gw?.stop(), small?.stop()]);
});

// ---------------------------------------------------------------------------------------------
// Helpers (local to this file)

const MESSAGE = 'Data ingested successfully';
const INGEST = `mutation Ingest($datasetId: ID!, $data: JSON!, $msgid: String) {
  ingest(datasetId: $datasetId, data: $data, msgid: $msgid) { message accepted processed duplicates failed }
}`;

interface IngestPayload {
  message: string;
  accepted: number;
  processed: number;
  duplicates: number;
  failed: number;
}

let sequence = 0;
/** A value no other test uses (msgids, event ids). */
function unique(label: string): string {
  sequence += 1;
  return `${label}-${sequence}-${randomUUID().slice(0, 8)}`;
}

function ingest(datasetId: string, data: unknown, msgid?: string, target: TestGateway = gw): Promise<GraphQLResponse> {
  return graphql(target, INGEST, { datasetId, data, ...(msgid === undefined ? {} : { msgid }) });
}

/** Ingests and expects success; returns the payload. */
async function ingestOk(datasetId: string, data: unknown, msgid: string, target: TestGateway = gw): Promise<IngestPayload> {
  const response = await ingest(datasetId, data, msgid, target);
  expect(response.errors).toBeUndefined();
  const payload = response.data!.ingest as IngestPayload;
  expect(payload.message).toBe(MESSAGE);
  return payload;
}

interface StoredEvent {
  dataset_id: string;
  msgid: string;
  payload: Json;
  event_ms: number;
  arrival_ms: number;
}

/** The events stored for one request, in the order they were sent. */
async function storedEvents(msgid: string, target: TestGateway = gw): Promise<StoredEvent[]> {
  const rows = await target.sql<StoredEvent>(
    `SELECT dataset_id, msgid, payload, (extract(epoch FROM event_time) * 1000)::float8 AS event_ms,
            (extract(epoch FROM arrival_time) * 1000)::float8 AS arrival_ms
       FROM events WHERE msgid = $1 ORDER BY id`,
    [msgid],
  );
  return rows.rows;
}

interface FailedEvent {
  dataset_id: string;
  stage: string;
  reason: string;
  payload: unknown;
}

/** The events of one request kept as failed, in the order they were sent. */
async function failedEvents(msgid: string, target: TestGateway = gw): Promise<FailedEvent[]> {
  const rows = await target.sql<FailedEvent>('SELECT dataset_id, stage, reason, payload FROM failed_events WHERE msgid = $1 ORDER BY id', [msgid]);
  return rows.rows;
}

/** Row counts of every event-store table, to prove a refused request wrote nothing. */
async function storeCounts(target: TestGateway = gw): Promise<Record<string, number>> {
  const rows = await target.sql<Record<string, number>>(
    `SELECT (SELECT count(*)::int FROM events) AS events, (SELECT count(*)::int FROM failed_events) AS failed_events,
            (SELECT count(*)::int FROM event_dedup) AS event_dedup, (SELECT count(*)::int FROM master_records) AS master_records`,
  );
  return rows.rows[0]!;
}

/** A single error from our services: contract code, its responseCode, and a message matching `message`; no payload. */
function expectFailure(response: GraphQLResponse, code: string, responseCode: string, message: RegExp): void {
  expect(response.status).toBe(200);
  expect(response.errors).toHaveLength(1);
  expect({ code: errorCode(response), responseCode: response.errors![0]!.extensions?.responseCode }).toEqual({ code, responseCode });
  expect(response.errors![0]!.message).toMatch(message);
  expect(response.data ?? null).toBeNull();
}

/** GraphQL itself refused the request (type or validation level): no data, an error matching `message`. */
function expectRefusedByGraphQL(response: GraphQLResponse, message: RegExp): void {
  expect(response.status).toBe(400);
  expect(response.data ?? null).toBeNull();
  expect(response.errors?.length).toBeGreaterThan(0);
  expect(response.errors![0]!.message).toMatch(message);
}

/** A Live event dataset with these definition overrides (see test/support/datasets.ts). */
async function liveDataset(label: string, overrides: Json = {}): Promise<string> {
  const id = `gql_${label}`;
  await seedDataset(gw, id, 'Live', overrides);
  return id;
}

const STRICT_SCHEMA = {
  $schema: SCHEMA_2020,
  type: 'object',
  properties: {
    id: { type: 'string', arrival_format: 'text', data_type: 'string' },
    ts: { type: 'string', arrival_format: 'text', data_type: 'date-time' },
    amount: { type: 'number', arrival_format: 'number', data_type: 'number' },
  },
  required: ['id'],
  additionalProperties: false,
};

// ---------------------------------------------------------------------------------------------

describe('ingest with valid events', () => {
  it('stores one event and answers "Data ingested successfully" with its counts, once the row is in the store', async () => {
    const msgid = unique('single');
    const event = { id: unique('e'), ts: '2026-01-02T03:04:05.000Z', amount: 12.5, nested: { a: [1, 2] } };
    expect(await ingestOk(EVENTS, event, msgid)).toEqual({ message: MESSAGE, accepted: 1, processed: 1, duplicates: 0, failed: 0 });

    const stored = await storedEvents(msgid);
    expect(stored.map((row) => [row.dataset_id, row.msgid, row.payload])).toEqual([[EVENTS, msgid, event]]);
  });

  it('stores every event of a batch, in order, under the request msgid', async () => {
    const msgid = unique('batch');
    const events = [1, 2, 3].map((n) => ({ id: unique(`b${n}`), ts: `2026-01-0${n}T00:00:00.000Z`, amount: n }));
    expect(await ingestOk(EVENTS, events, msgid)).toEqual({ message: MESSAGE, accepted: 3, processed: 3, duplicates: 0, failed: 0 });
    expect((await storedEvents(msgid)).map((row) => row.payload)).toEqual(events);
    expect(await failedEvents(msgid)).toEqual([]);
  });

  it('stores the events under a generated msgid when none is given', async () => {
    const event = { id: unique('nomsgid') };
    await expect(ingest(EVENTS, event).then((response) => response.errors)).resolves.toBeUndefined();
    const rows = await gw.sql<{ msgid: string }>(`SELECT msgid FROM events WHERE dataset_id = $1 AND payload ->> 'id' = $2`, [EVENTS, event.id]);
    expect(rows.rows).toHaveLength(1);
    expect(rows.rows[0]!.msgid).toMatch(UUID_PATTERN);
  });

  it('takes a batch of exactly the configured maximum (INGEST_MAX_BATCH=5)', async () => {
    const msgid = unique('max');
    const events = [1, 2, 3, 4, 5].map((n) => ({ id: unique(`m${n}`), amount: n }));
    expect((await ingestOk(SMALL, events, msgid, small)).accepted).toBe(5);
    expect(await storedEvents(msgid, small)).toHaveLength(5);
  });

  it('takes an ingest body larger than the general request limit, up to INGEST_BODY_LIMIT (16 kB < 40 kB < 64 kB)', async () => {
    const msgid = unique('large');
    const events = [1, 2].map((n) => ({ id: unique(`l${n}`), note: 'x'.repeat(20_000) }));
    await ingestOk(SMALL, events, msgid, small);
    expect((await storedEvents(msgid, small)).map((row) => row.payload)).toEqual(events);
  });

  it('ingests into the Live version of a dataset that also has a Draft being edited', async () => {
    const id = 'gql_live_with_draft';
    await seedDataset(gw, id, 'LiveWithDraft');
    const msgid = unique('lwd');
    await ingestOk(id, { id: unique('e') }, msgid);
    expect(await storedEvents(msgid)).toHaveLength(1);
  });
});

describe('ingest with invalid data', () => {
  const cases: [string, () => unknown, RegExp][] = [
    ['a string', () => 'an event', /data/],
    ['a number', () => 42, /data/],
    ['a boolean', () => true, /data/],
    ['a batch holding a non-object item', () => [{ id: unique('e') }, 'not an event'], /data\/1/],
    ['a batch holding a nested array item', () => [[{ id: unique('e') }]], /data\/0/],
    ['a batch holding null', () => [{ id: unique('e') }, { id: unique('e') }, null], /data\/2/],
    ['an empty batch', () => [], /data/],
  ];

  it.each(cases)('refuses data that is %s with DATA_INGESTION_INVALID_INPUT naming the path, and writes nothing', async (_label, make, message) => {
    const before = await storeCounts();
    const response = await ingest(EVENTS, make(), unique('bad'));
    expectFailure(response, 'DATA_INGESTION_INVALID_INPUT', 'BAD_REQUEST', message);
    expect(await storeCounts()).toEqual(before);
  });

  it('refuses data null at the type level (data is JSON!) and writes nothing', async () => {
    const before = await storeCounts();
    expectRefusedByGraphQL(await ingest(EVENTS, null, unique('null')), /data/);
    expect(await storeCounts()).toEqual(before);
  });

  it('refuses a batch over INGEST_MAX_BATCH (6 events where 5 fit) naming data and the limit, and writes none of it', async () => {
    const before = await storeCounts(small);
    const response = await ingest(
      SMALL,
      [1, 2, 3, 4, 5, 6].map((n) => ({ id: unique(`o${n}`) })),
      unique('over'),
      small,
    );
    expectFailure(response, 'DATA_INGESTION_INVALID_INPUT', 'BAD_REQUEST', /data.*\b5\b/);
    expect(await storeCounts(small)).toEqual(before);
  });

  it('refuses a body over INGEST_BODY_LIMIT (64 kB) with a "too large" error, and writes none of it', async () => {
    const before = await storeCounts(small);
    const events = [1, 2, 3, 4].map((n) => ({ id: unique(`big${n}`), note: 'x'.repeat(20_000) }));
    const response = await ingest(SMALL, events, unique('big'), small);
    expect(response.status).toBe(413);
    expect(response.data ?? null).toBeNull();
    expect(response.errors?.[0]?.message).toMatch(/too large/);
    expect(await storeCounts(small)).toEqual(before);
  });
});

describe('ingest with text or nesting the store cannot hold', () => {
  it.each([
    ['a NUL in a string value', () => ({ id: unique('e'), note: 'a\u0000b' }), /^data\/note holds a NUL/],
    ['a NUL in a key', () => ({ id: unique('e'), ['k\u0000']: 1 }), /^data\/k\\u0000 holds a NUL/],
    ['a NUL deep in a batch item', () => [{ id: unique('e') }, { id: unique('e'), deep: { list: ['ok', '\u0000'] } }], /^data\/1\/deep\/list\/1 holds a NUL/],
    ['an event nested 33 objects deep', () => Array.from({ length: 32 }).reduce<Json>((inner) => ({ n: inner }), { id: unique('e') }), /^data\/n\/n.* is nested deeper than 32 levels$/],
  ])('refuses data with %s with DATA_INGESTION_INVALID_INPUT naming the path, and writes nothing', async (_label, make, message) => {
    const before = await storeCounts();
    const response = await ingest(EVENTS, make(), unique('nul'));
    expectFailure(response, 'DATA_INGESTION_INVALID_INPUT', 'BAD_REQUEST', message);
    expect(await storeCounts()).toEqual(before);
  });

  it.each([
    ['holding a NUL', () => `m\u0000${unique('nul')}`, /msgid.*NUL/],
    ['of 257 characters (REST allows 256)', () => 'm'.repeat(257), /msgid.*256/],
  ])('refuses a msgid %s with DATA_INGESTION_INVALID_INPUT, and writes nothing', async (_label, make, message) => {
    const before = await storeCounts();
    expectFailure(await ingest(EVENTS, { id: unique('e') }, make()), 'DATA_INGESTION_INVALID_INPUT', 'BAD_REQUEST', message);
    expect(await storeCounts()).toEqual(before);
  });

  it('refuses a dataset id over 200 characters (as REST does), writing nothing', async () => {
    const before = await storeCounts();
    const id = `gql_${'x'.repeat(300_000)}`;
    expectFailure(await ingest(id, { id: unique('e') }, unique('longid')), 'DATA_INGESTION_INVALID_INPUT', 'BAD_REQUEST', /datasetId.*200/);
    expect(await storeCounts()).toEqual(before);
  });

  it('answers a dataset id holding a NUL with DATASET_NOT_FOUND, writing nothing', async () => {
    const before = await storeCounts();
    expectFailure(await ingest(`${EVENTS}\u0000`, { id: unique('e') }, unique('nulid')), 'DATASET_NOT_FOUND', 'BAD_REQUEST', /not found/);
    expect(await storeCounts()).toEqual(before);
  });
});

describe('ingest into a dataset that cannot take events', () => {
  it('answers an unknown dataset with DATASET_NOT_FOUND (responseCode BAD_REQUEST) naming it', async () => {
    const before = await storeCounts();
    const response = await ingest('gql_no_such_dataset', { id: unique('e') }, unique('ghost'));
    expectFailure(response, 'DATASET_NOT_FOUND', 'BAD_REQUEST', /gql_no_such_dataset/);
    expect(await storeCounts()).toEqual(before);
  });

  it.each([
    ['NULL', null],
    ["''", ''],
  ])('answers a Live dataset whose entry topic is %s with TOPIC_NOT_FOUND (responseCode BAD_REQUEST)', async (label, topic) => {
    const id = await liveDataset(`no_topic_${label === 'NULL' ? 'null' : 'empty'}`);
    await gw.sql('UPDATE datasets SET entry_topic = $2 WHERE dataset_id = $1', [id, topic]);
    const configTopic = await gw.sql<{ topic: unknown }>(`SELECT dataset_config::jsonb -> 'entry_topic' AS topic FROM datasets WHERE dataset_id = $1`, [id]);
    expect(configTopic.rows[0]?.topic ?? null).toBeNull();
    const before = await storeCounts();
    const response = await ingest(id, { id: unique('e') }, unique('notopic'));
    expectFailure(response, 'TOPIC_NOT_FOUND', 'BAD_REQUEST', /[Ee]ntry topic/);
    expect(await storeCounts()).toEqual(before);
  });

  it.each(['Draft', 'ReadyToPublish', 'Retired'] as const)('refuses a %s dataset with DATASET_NOT_FOUND (responseCode BAD_REQUEST), writing nothing', async (state) => {
    const id = `gql_state_${state.toLowerCase()}`;
    await seedDataset(gw, id, state);
    const before = await storeCounts();
    const response = await ingest(id, { id: unique('e') }, unique(state));
    expectFailure(response, 'DATASET_NOT_FOUND', 'BAD_REQUEST', new RegExp(id));
    expect(await storeCounts()).toEqual(before);
  });
});

describe('processing: dedup', () => {
  let dedup: string;
  beforeAll(async () => {
    dedup = await liveDataset('dedup', { dedup_config: { drop_duplicates: true, dedup_key: 'id', dedup_period: 3600 } });
  });

  it('keeps a second event with the same dedup key within the period as failed at stage dedup, and counts it as a duplicate', async () => {
    const key = unique('dup');
    const first = unique('first');
    await ingestOk(dedup, { id: key, amount: 1 }, first);
    const second = unique('second');
    expect(await ingestOk(dedup, { id: key, amount: 2 }, second)).toEqual({ message: MESSAGE, accepted: 1, processed: 0, duplicates: 1, failed: 0 });

    expect((await storedEvents(first)).map((row) => row.payload)).toEqual([{ id: key, amount: 1 }]);
    expect(await storedEvents(second)).toEqual([]);
    const failed = await failedEvents(second);
    expect(failed.map((row) => [row.dataset_id, row.stage, row.payload])).toEqual([[dedup, 'dedup', { id: key, amount: 2 }]]);
    expect(failed[0]!.reason).toContain(key);
  });

  it('accepts the same dedup key again once the period has passed', async () => {
    const key = unique('later');
    await ingestOk(dedup, { id: key, amount: 1 }, unique('first'));
    await gw.sql(`UPDATE event_dedup SET seen_at = now() - interval '3601 seconds' WHERE dataset_id = $1 AND dedup_key = $2`, [dedup, key]);
    const again = unique('again');
    expect(await ingestOk(dedup, { id: key, amount: 3 }, again)).toMatchObject({ processed: 1, duplicates: 0 });
    expect((await storedEvents(again)).map((row) => row.payload)).toEqual([{ id: key, amount: 3 }]);

    // ... and the period starts again from that event.
    const third = unique('third');
    expect(await ingestOk(dedup, { id: key, amount: 4 }, third)).toMatchObject({ processed: 0, duplicates: 1 });
    expect(await storedEvents(third)).toEqual([]);
  });

  it('keeps the repeats of a key inside one batch as duplicates and stores the first', async () => {
    const [a, b] = [unique('a'), unique('b')];
    const msgid = unique('inbatch');
    expect(
      await ingestOk(
        dedup,
        [
          { id: a, amount: 1 },
          { id: b, amount: 2 },
          { id: a, amount: 3 },
        ],
        msgid,
      ),
    ).toEqual({
      message: MESSAGE,
      accepted: 3,
      processed: 2,
      duplicates: 1,
      failed: 0,
    });
    expect((await storedEvents(msgid)).map((row) => row.payload)).toEqual([
      { id: a, amount: 1 },
      { id: b, amount: 2 },
    ]);
    expect((await failedEvents(msgid)).map((row) => [row.stage, row.payload])).toEqual([['dedup', { id: a, amount: 3 }]]);
  });

  it('stores exactly one of several concurrent requests carrying the same dedup key', async () => {
    const key = unique('race');
    const msgids = [1, 2, 3, 4, 5].map((n) => unique(`race${n}`));
    await Promise.all(msgids.map((msgid, n) => ingestOk(dedup, { id: key, amount: n }, msgid)));
    const rows = await gw.sql<{ stored: number; duplicates: number }>(
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
    expect(await storedEvents(msgid)).toHaveLength(2);
    expect((await failedEvents(msgid)).map((row) => row.stage)).toEqual(['dedup']);
  });

  it('stores every repeat when the dataset does not drop duplicates', async () => {
    const id = await liveDataset('no_dedup', { dedup_config: { drop_duplicates: false, dedup_key: 'id', dedup_period: 3600 } });
    const key = unique('same');
    const first = unique('first');
    expect(await ingestOk(id, [{ id: key }, { id: key }], first)).toMatchObject({ processed: 2, duplicates: 0 });
    const second = unique('second');
    await ingestOk(id, { id: key }, second);
    expect(await storedEvents(first)).toHaveLength(2);
    expect(await storedEvents(second)).toHaveLength(1);
  });
});

describe('processing: validation against data_schema', () => {
  it('keeps events that fail Strict validation at stage validation with a reason naming the field, and stores the valid ones', async () => {
    const id = await liveDataset('strict', { data_schema: STRICT_SCHEMA, validation_config: { validate: true, mode: 'Strict' } });
    const msgid = unique('strict');
    const good = { id: unique('good'), amount: 1 };
    const wrongType = { id: unique('type'), amount: 'ten' };
    const newField = { id: unique('new'), colour: 'red' };
    expect(await ingestOk(id, [good, wrongType, newField], msgid)).toEqual({ message: MESSAGE, accepted: 3, processed: 1, duplicates: 0, failed: 2 });

    expect((await storedEvents(msgid)).map((row) => row.payload)).toEqual([good]);
    const failed = await failedEvents(msgid);
    expect(failed.map((row) => [row.stage, row.payload])).toEqual([
      ['validation', wrongType],
      ['validation', newField],
    ]);
    expect(failed[0]!.reason).toMatch(/amount/);
    expect(failed[1]!.reason).toMatch(/colour/);
  });

  it('lets unknown fields through with IgnoreNewFields, but still refuses a wrong type', async () => {
    const id = await liveDataset('ignore_new', { data_schema: STRICT_SCHEMA, validation_config: { validate: true, mode: 'IgnoreNewFields' } });
    const msgid = unique('ignore');
    const newField = { id: unique('new'), colour: 'red', amount: 2 };
    const wrongType = { id: unique('type'), amount: 'ten' };
    expect(await ingestOk(id, [newField, wrongType], msgid)).toMatchObject({ processed: 1, failed: 1 });
    expect((await storedEvents(msgid)).map((row) => row.payload)).toEqual([newField]);
    const failed = await failedEvents(msgid);
    expect(failed.map((row) => row.stage)).toEqual(['validation']);
    expect(failed[0]!.reason).toMatch(/amount/);
  });

  it('stores events of any shape when validation is off', async () => {
    const id = await liveDataset('no_validation', { data_schema: STRICT_SCHEMA, validation_config: { validate: false, mode: 'Strict' } });
    const msgid = unique('novalid');
    const events = [{ id: unique('a'), amount: 'ten' }, { colour: 'red' }];
    expect(await ingestOk(id, events, msgid)).toMatchObject({ processed: 2, failed: 0 });
    expect((await storedEvents(msgid)).map((row) => row.payload)).toEqual(events);
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
    expect((await storedEvents(msgid)).map((row) => row.payload)).toEqual(items);
  });

  it('keeps an extracted item that is not an object as failed at stage extraction, with the reason', async () => {
    const msgid = unique('extractbad');
    const good = { id: unique('ok') };
    await ingestOk(batched, { events: [good, 'not an event'] }, msgid);
    expect((await storedEvents(msgid)).map((row) => row.payload)).toEqual([good]);
    const failed = await failedEvents(msgid);
    expect(failed.map((row) => [row.stage, row.payload])).toEqual([['extraction', 'not an event']]);
    expect(failed[0]!.reason).toMatch(/object/);
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
    expect((await storedEvents(msgid)).map((row) => row.event_ms)).toEqual([Date.parse(iso), 1_700_000_000_000, 1_700_000_000_123, 1_700_000_000_123]);
  });

  it('uses the arrival time when the event has no value at the timestamp key', async () => {
    const msgid = unique('arrival');
    const before = Date.now();
    await ingestOk(times, [{ id: unique('none') }, { id: unique('other'), meta: { event: {} } }], msgid);
    const after = Date.now();
    const stored = await storedEvents(msgid);
    expect(stored).toHaveLength(2);
    for (const row of stored) {
      expect(row.event_ms).toBe(row.arrival_ms);
      expect(row.arrival_ms).toBeGreaterThanOrEqual(before - 1000);
      expect(row.arrival_ms).toBeLessThanOrEqual(after + 1000);
    }
  });
});

describe('processing: master datasets and denormalisation', () => {
  const MASTER = 'gql_users';
  let enriched: string;
  beforeAll(async () => {
    await seedMaster(gw, MASTER);
    enriched = await liveDataset('orders', { denorm_config: { denorm_fields: [denormField(MASTER, 'user')] } });
  });

  async function masterRecord(key: string): Promise<Json | undefined> {
    const rows = await gw.sql<{ payload: Json }>('SELECT payload FROM master_records WHERE dataset_id = $1 AND record_key = $2', [MASTER, key]);
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
    const count = await gw.sql<{ n: number }>('SELECT count(*)::int AS n FROM master_records WHERE dataset_id = $1 AND record_key IN ($2, $3)', [MASTER, u1, u2]);
    expect(count.rows[0]!.n).toBe(2);
  });

  it('keeps a master event without a value at data_key as failed, naming the key', async () => {
    const msgid = unique('nokey');
    expect(await ingestOk(MASTER, [{ name: 'Nobody' }], msgid)).toMatchObject({ processed: 0, failed: 1 });
    const failed = await failedEvents(msgid);
    expect(failed.map((row) => [row.stage, row.payload])).toEqual([['master', { name: 'Nobody' }]]);
    expect(failed[0]!.reason).toMatch(/data_key/);
  });

  it('adds the master record under denorm_out_field, and null when the master has no record for the key', async () => {
    const known = unique('known');
    await ingestOk(MASTER, { userid: known, name: 'Kim', tier: 'gold' }, unique('master'));
    const msgid = unique('orders');
    const missing = unique('missing');
    await ingestOk(
      enriched,
      [
        { id: unique('o1'), userid: known, amount: 5 },
        { id: unique('o2'), userid: missing, amount: 6 },
        { id: unique('o3'), amount: 7 },
      ],
      msgid,
    );
    const stored = (await storedEvents(msgid)).map((row) => row.payload);
    expect(stored.map((event) => event.user)).toEqual([{ userid: known, name: 'Kim', tier: 'gold' }, null, null]);
    expect(stored.map((event) => event.amount)).toEqual([5, 6, 7]);
  });
});

describe('a request that fails writes nothing', () => {
  it('stores no event of a batch when the store cannot write the failed ones, and a retry after the fault stores them once', async () => {
    const id = await liveDataset('atomic', { data_schema: STRICT_SCHEMA, validation_config: { validate: true, mode: 'Strict' } });
    const good = { id: unique('good'), amount: 1 };
    const bad = { id: unique('bad'), amount: 'not a number' };
    const msgid = unique('atomic');
    const before = await storeCounts();
    await gw.sql('ALTER TABLE failed_events ADD CONSTRAINT no_failures CHECK (false) NOT VALID');
    let response: GraphQLResponse;
    try {
      response = await ingest(id, [good, bad], msgid);
    } finally {
      await gw.sql('ALTER TABLE failed_events DROP CONSTRAINT IF EXISTS no_failures');
    }
    expect(response.data ?? null).toBeNull();
    expect(response.errors).toHaveLength(1);
    expect(errorCode(response)).toBe('INTERNAL_SERVER_ERROR');
    expect(await storedEvents(msgid)).toEqual([]);
    expect(await failedEvents(msgid)).toEqual([]);
    expect(await storeCounts()).toEqual(before);

    // The dedup key the failed request saw is not held against the retry.
    expect(await ingestOk(id, [good, bad], msgid)).toMatchObject({ processed: 1, duplicates: 0, failed: 1 });
    expect((await storedEvents(msgid)).map((row) => row.payload)).toEqual([good]);
  });
});

describe('ingestionStats', () => {
  const STATS = 'ingestionStats(datasetId: $id) { datasetId requests received processed duplicates failed rejectedRequests }';

  async function stats(id: string): Promise<Json> {
    const response = await graphql(gw, `query Stats($id: ID!) { ${STATS} }`, { id });
    expect(response.errors).toBeUndefined();
    return response.data!.ingestionStats as Json;
  }

  it('counts requests, events received, processed, duplicates and failures per dataset', async () => {
    const id = await liveDataset('counted', { data_schema: STRICT_SCHEMA, validation_config: { validate: true, mode: 'Strict' } });
    expect(await stats(id)).toEqual({ datasetId: id, requests: 0, received: 0, processed: 0, duplicates: 0, failed: 0, rejectedRequests: 0 });

    const [c1, c2] = [unique('c1'), unique('c2')];
    await ingestOk(id, { id: c1 }, unique('count'));
    await ingestOk(id, [{ id: c2 }, { id: c2 }, { id: unique('c3'), amount: 'x' }], unique('count'));
    // Invalid data is not an ingest call of the dataset.
    expect(errorCode(await ingest(id, [], unique('count')))).toBe('DATA_INGESTION_INVALID_INPUT');
    expect(await stats(id)).toEqual({ datasetId: id, requests: 2, received: 4, processed: 2, duplicates: 1, failed: 1, rejectedRequests: 0 });
  });

  it('counts refused calls of a dataset without an entry topic, and of an unknown dataset', async () => {
    const id = await liveDataset('counted_no_topic');
    await gw.sql('UPDATE datasets SET entry_topic = NULL WHERE dataset_id = $1', [id]);
    expect(errorCode(await ingest(id, { id: unique('e') }, unique('rej')))).toBe('TOPIC_NOT_FOUND');
    expect(errorCode(await ingest(id, { id: unique('e') }, unique('rej')))).toBe('TOPIC_NOT_FOUND');
    expect(await stats(id)).toMatchObject({ requests: 0, received: 0, rejectedRequests: 2 });

    expect(errorCode(await ingest('gql_counted_ghost', { id: unique('e') }, unique('rej')))).toBe('DATASET_NOT_FOUND');
    expect(await stats('gql_counted_ghost')).toMatchObject({ requests: 0, rejectedRequests: 1 });
  });
});
