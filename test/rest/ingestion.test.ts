// Ingestion over the REST compatibility layer: POST /v2/data/in/{dataset_id} (contract 4.2, 7;
// issue 5) into the embedded event store. Mirrors test/graphql/ingestion.test.ts rule by rule.
// Tests share one database: every test uses dataset ids, msgids and event ids of its own.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { graphql } from '../support/api.js';
import { denormField, SCHEMA_2020, seedDataset, seedMaster, type Json } from '../support/datasets.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

let gw: TestGateway;
/** A gateway with small ingestion limits: at most 5 events and 64 kB per ingest call, 16 kB for other calls. */
let small: TestGateway;

const EVENTS = 'rest_ingest_events';
const SMALL = 'rest_ingest_small';

beforeAll(async () => {
  [gw, small] = await Promise.all([startTestGateway(), startTestGateway({ INGEST_MAX_BATCH: '5', INGEST_BODY_LIMIT: '64kb', REQUEST_BODY_LIMIT: '16kb' })]);
  await Promise.all([seedDataset(gw, EVENTS, 'Live'), seedDataset(small, SMALL, 'Live')]);
}, 60_000);
afterAll(async () => {
  await Promise.all([gw?.stop(), small?.stop()]);
});

// ---------------------------------------------------------------------------------------------
// Helpers (local to this file)

const API_ID = 'api.data.in';
const INGESTED = { message: 'Data ingested successfully' };

let sequence = 0;
/** A value no other test uses (msgids, event ids). */
function unique(label: string): string {
  sequence += 1;
  return `${label}-${sequence}-${randomUUID().slice(0, 8)}`;
}

/** The ingest body of the contract: the envelope with `data` instead of `request`. */
function body(data: unknown, msgid: string): Json {
  return { id: API_ID, ver: 'v2', ts: new Date().toISOString(), params: { msgid }, data };
}

function send(datasetId: string, payload: unknown, target: TestGateway = gw): Promise<Response> {
  return target.http
    .post(`/v2/data/in/${encodeURIComponent(datasetId)}`)
    .set('content-type', 'application/json')
    .send(payload as object);
}

function ingest(datasetId: string, data: unknown, msgid: string, target: TestGateway = gw): Promise<Response> {
  return send(datasetId, body(data, msgid), target);
}

/** Ingests and expects the success envelope. */
async function ingestOk(datasetId: string, data: unknown, msgid: string, target: TestGateway = gw): Promise<void> {
  const response = await ingest(datasetId, data, msgid, target);
  expect({ status: response.status, body: response.body.result, error: response.body.error }).toEqual({ status: 200, body: INGESTED, error: undefined });
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

/** A failure envelope with this status, code, responseCode and a message matching `message`. */
function expectFailure(response: Response, status: number, responseCode: string, code: string, message: RegExp): void {
  expect({ status: response.status, responseCode: response.body.responseCode, code: response.body.error?.code }).toEqual({ status, responseCode, code });
  expect(response.body.id).toBe(API_ID);
  expect(response.body.params?.status).toBe('FAILED');
  expect(response.body.error.trace).toBe('');
  expect(response.body.error.message).toMatch(message);
}

/** A Live event dataset with these definition overrides (see test/support/datasets.ts). */
async function liveDataset(label: string, overrides: Json = {}): Promise<string> {
  const id = `rest_${label}`;
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

describe('POST /v2/data/in/{dataset_id} with valid events', () => {
  it('stores one event and answers {message: "Data ingested successfully"} in the success envelope, once the row is in the store', async () => {
    const msgid = unique('single');
    const event = { id: unique('e'), ts: '2026-01-02T03:04:05.000Z', amount: 12.5, nested: { a: [1, 2] } };
    const response = await ingest(EVENTS, event, msgid);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: API_ID, ver: 'v2', responseCode: 'OK', params: { status: 'SUCCESS', msgid } });
    expect(response.body.result).toEqual(INGESTED);

    const stored = await storedEvents(msgid);
    expect(stored.map((row) => [row.dataset_id, row.msgid, row.payload])).toEqual([[EVENTS, msgid, event]]);
  });

  it('stores every event of a batch, in order, under the request msgid', async () => {
    const msgid = unique('batch');
    const events = [1, 2, 3].map((n) => ({ id: unique(`b${n}`), ts: `2026-01-0${n}T00:00:00.000Z`, amount: n }));
    await ingestOk(EVENTS, events, msgid);
    expect((await storedEvents(msgid)).map((row) => row.payload)).toEqual(events);
    expect(await failedEvents(msgid)).toEqual([]);
  });

  it('takes a batch of exactly the configured maximum (INGEST_MAX_BATCH=5)', async () => {
    const msgid = unique('max');
    const events = [1, 2, 3, 4, 5].map((n) => ({ id: unique(`m${n}`), amount: n }));
    await ingestOk(SMALL, events, msgid, small);
    expect(await storedEvents(msgid, small)).toHaveLength(5);
  });

  it('takes an ingest body larger than the general request limit, up to INGEST_BODY_LIMIT (16 kB < 40 kB < 64 kB)', async () => {
    const msgid = unique('large');
    const events = [1, 2].map((n) => ({ id: unique(`l${n}`), note: 'x'.repeat(20_000) }));
    await ingestOk(SMALL, events, msgid, small);
    expect((await storedEvents(msgid, small)).map((row) => row.payload)).toEqual(events);
  });

  it('ingests into the Live version of a dataset that also has a Draft being edited', async () => {
    const id = `rest_live_with_draft`;
    await seedDataset(gw, id, 'LiveWithDraft');
    const msgid = unique('lwd');
    await ingestOk(id, { id: unique('e') }, msgid);
    expect(await storedEvents(msgid)).toHaveLength(1);
  });
});

describe('POST /v2/data/in/{dataset_id} with an invalid envelope or body', () => {
  const valid = () => body({ id: unique('e') }, unique('bad'));
  const cases: [string, () => Json, RegExp][] = [
    ['without id', () => ({ ...valid(), id: undefined }), /^#required must have required property 'id'$/],
    ['with another operation id', () => ({ ...valid(), id: 'api.datasets.read' }), /#properties\/id\/const.*api\.data\.in/],
    ['without ver', () => ({ ...valid(), ver: undefined }), /^#required must have required property 'ver'$/],
    ['without ts', () => ({ ...valid(), ts: undefined }), /^#required must have required property 'ts'$/],
    ['without params', () => ({ ...valid(), params: undefined }), /^#required must have required property 'params'$/],
    ['without params.msgid', () => ({ ...valid(), params: {} }), /#properties\/params\/required must have required property 'msgid'/],
    ['without data', () => ({ ...valid(), data: undefined }), /^#required must have required property 'data'$/],
    ['with data a string', () => ({ ...valid(), data: 'an event' }), /data/],
    ['with data a number', () => ({ ...valid(), data: 42 }), /data/],
    ['with data null', () => ({ ...valid(), data: null }), /data/],
    ['with a batch holding a non-object item', () => ({ ...valid(), data: [{ id: unique('e') }, 'not an event'] }), /data\/1/],
    ['with a batch holding a nested array item', () => ({ ...valid(), data: [[{ id: unique('e') }]] }), /data\/0/],
    ['with an empty batch', () => ({ ...valid(), data: [] }), /data/],
  ];

  it.each(cases)('refuses a body %s with 400 DATA_INGESTION_INVALID_INPUT naming the path, and writes nothing', async (_label, make, message) => {
    const before = await storeCounts();
    const payload = make();
    const response = await send(EVENTS, payload);
    expectFailure(response, 400, 'BAD_REQUEST', 'DATA_INGESTION_INVALID_INPUT', message);
    expect(await storeCounts()).toEqual(before);
  });

  it('echoes the msgid of a refused request', async () => {
    const msgid = unique('echo');
    const response = await ingest(EVENTS, 'not an event', msgid);
    expect(response.status).toBe(400);
    expect(response.body.params.msgid).toBe(msgid);
  });

  it('refuses a body that is not JSON with 400 DATA_INGESTION_INVALID_INPUT', async () => {
    const before = await storeCounts();
    const response = await send(EVENTS, '{"id": "api.data.in", "data": [');
    expectFailure(response, 400, 'BAD_REQUEST', 'DATA_INGESTION_INVALID_INPUT', /JSON/);
    expect(await storeCounts()).toEqual(before);
  });

  it('refuses a batch over INGEST_MAX_BATCH (6 events where 5 fit) with 400 naming data and the limit, and writes none of it', async () => {
    const before = await storeCounts(small);
    const msgid = unique('over');
    const response = await ingest(
      SMALL,
      [1, 2, 3, 4, 5, 6].map((n) => ({ id: unique(`o${n}`) })),
      msgid,
      small,
    );
    expectFailure(response, 400, 'BAD_REQUEST', 'DATA_INGESTION_INVALID_INPUT', /data.*\b5\b/);
    expect(await storeCounts(small)).toEqual(before);
  });

  it('refuses a body over INGEST_BODY_LIMIT (64 kB) with 400 DATA_INGESTION_INVALID_INPUT naming the limit, and writes none of it', async () => {
    const before = await storeCounts(small);
    const events = [1, 2, 3, 4].map((n) => ({ id: unique(`big${n}`), note: 'x'.repeat(20_000) }));
    const response = await ingest(SMALL, events, unique('big'), small);
    expectFailure(response, 400, 'BAD_REQUEST', 'DATA_INGESTION_INVALID_INPUT', /65536/);
    expect(await storeCounts(small)).toEqual(before);
  });
});

describe('POST /v2/data/in/{dataset_id} with text the store cannot hold', () => {
  it.each([
    ['a NUL in a string value', () => ({ id: unique('e'), note: 'a\u0000b' }), /data\/note/],
    ['a NUL in a key', () => ({ id: unique('e'), ['k\u0000']: 1 }), /data\/k/],
    ['a NUL deep in a batch item', () => [{ id: unique('e') }, { id: unique('e'), deep: { list: ['ok', '\u0000'] } }], /data\/1\/deep\/list\/1/],
  ])('refuses an event with %s with 400 DATA_INGESTION_INVALID_INPUT naming the path, and writes nothing', async (_label, make, message) => {
    const before = await storeCounts();
    const response = await ingest(EVENTS, make(), unique('nul'));
    expectFailure(response, 400, 'BAD_REQUEST', 'DATA_INGESTION_INVALID_INPUT', message);
    expect(response.body.error.message).toMatch(/NUL/);
    expect(await storeCounts()).toEqual(before);
  });

  it('refuses a msgid holding a NUL with 400 DATA_INGESTION_INVALID_INPUT naming msgid, and writes nothing', async () => {
    const before = await storeCounts();
    const response = await ingest(EVENTS, { id: unique('e') }, `m\u0000${unique('nul')}`);
    expectFailure(response, 400, 'BAD_REQUEST', 'DATA_INGESTION_INVALID_INPUT', /msgid.*NUL/);
    expect(await storeCounts()).toEqual(before);
  });

  it('answers a dataset id holding a NUL as an unknown dataset (404 DATASET_NOT_FOUND), writing nothing', async () => {
    const before = await storeCounts();
    const response = await ingest(`${EVENTS}\u0000`, { id: unique('e') }, unique('nulid'));
    expectFailure(response, 404, 'BAD_REQUEST', 'DATASET_NOT_FOUND', /not found/);
    expect(await storeCounts()).toEqual(before);
  });

  it.each([33, 5_000, 100_000])('refuses an event nested %i objects deep with 400 DATA_INGESTION_INVALID_INPUT naming data, and writes nothing', async (depth) => {
    const before = await storeCounts();
    // Written by hand: the test client's own JSON.stringify cannot write the deepest of them.
    const raw = `{"id":"${API_ID}","ver":"v2","ts":"${new Date().toISOString()}","params":{"msgid":"${unique('deep')}"},"data":${'{"n":'.repeat(depth)}1${'}'.repeat(depth)}}`;
    const response = await send(EVENTS, raw);
    expectFailure(response, 400, 'BAD_REQUEST', 'DATA_INGESTION_INVALID_INPUT', /^data\/n\/n.* is nested deeper than 32 levels$/);
    expect(await storeCounts()).toEqual(before);
  });

  it('stores an event nested 32 objects deep, and a batch of them', async () => {
    let event: Json = { id: unique('e') };
    for (let i = 1; i < 32; i++) event = { n: event };
    const msgid = unique('deep-ok');
    await ingestOk(EVENTS, [event, event], msgid);
    expect(await storedEvents(msgid)).toHaveLength(2);
  });

  it('stores huge and tiny numbers as JSON numbers', async () => {
    const msgid = unique('numbers');
    await ingestOk(EVENTS, { id: unique('e'), big: 1e308, small: -1e-308, long: Number.MAX_SAFE_INTEGER }, msgid);
    const [stored] = await storedEvents(msgid);
    expect(stored?.payload).toMatchObject({ big: 1e308, small: -1e-308, long: Number.MAX_SAFE_INTEGER });
  });
});

describe('POST /v2/data/in/{dataset_id} for a dataset that cannot take events', () => {
  it('answers an unknown dataset with HTTP 404, responseCode BAD_REQUEST and DATASET_NOT_FOUND naming it', async () => {
    const before = await storeCounts();
    const response = await ingest('rest_no_such_dataset', { id: unique('e') }, unique('ghost'));
    expectFailure(response, 404, 'BAD_REQUEST', 'DATASET_NOT_FOUND', /rest_no_such_dataset/);
    expect(await storeCounts()).toEqual(before);
  });

  it.each([
    ['NULL', null],
    ["''", ''],
  ])('answers a Live dataset whose entry topic is %s with HTTP 404, responseCode BAD_REQUEST and TOPIC_NOT_FOUND', async (label, topic) => {
    const id = await liveDataset(`no_topic_${label === 'NULL' ? 'null' : 'empty'}`);
    await gw.sql('UPDATE datasets SET entry_topic = $2 WHERE dataset_id = $1', [id, topic]);
    const configTopic = await gw.sql<{ topic: unknown }>(`SELECT dataset_config::jsonb -> 'entry_topic' AS topic FROM datasets WHERE dataset_id = $1`, [id]);
    expect(configTopic.rows[0]?.topic ?? null).toBeNull();
    const before = await storeCounts();
    const response = await ingest(id, { id: unique('e') }, unique('notopic'));
    expectFailure(response, 404, 'BAD_REQUEST', 'TOPIC_NOT_FOUND', /[Ee]ntry topic/);
    expect(await storeCounts()).toEqual(before);
  });

  it.each(['Draft', 'ReadyToPublish', 'Retired'] as const)('refuses a %s dataset with HTTP 404, responseCode BAD_REQUEST and DATASET_NOT_FOUND, writing nothing', async (state) => {
    const id = `rest_state_${state.toLowerCase()}`;
    await seedDataset(gw, id, state);
    const before = await storeCounts();
    const response = await ingest(id, { id: unique('e') }, unique(state));
    expectFailure(response, 404, 'BAD_REQUEST', 'DATASET_NOT_FOUND', new RegExp(id));
    expect(await storeCounts()).toEqual(before);
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
    await ingestOk(dedup, { id: key, amount: 2 }, second);

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
    await ingestOk(dedup, { id: key, amount: 3 }, again);
    expect((await storedEvents(again)).map((row) => row.payload)).toEqual([{ id: key, amount: 3 }]);
    expect(await failedEvents(again)).toEqual([]);

    // ... and the period starts again from that event.
    const third = unique('third');
    await ingestOk(dedup, { id: key, amount: 4 }, third);
    expect(await storedEvents(third)).toEqual([]);
    expect((await failedEvents(third)).map((row) => row.stage)).toEqual(['dedup']);
  });

  it('keeps the repeats of a key inside one batch as duplicates and stores the first', async () => {
    const [a, b] = [unique('a'), unique('b')];
    const msgid = unique('inbatch');
    await ingestOk(
      dedup,
      [
        { id: a, amount: 1 },
        { id: b, amount: 2 },
        { id: a, amount: 3 },
      ],
      msgid,
    );
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
    await ingestOk(id, [{ id: key }, { id: key }], first);
    const second = unique('second');
    await ingestOk(id, { id: key }, second);
    expect(await storedEvents(first)).toHaveLength(2);
    expect(await storedEvents(second)).toHaveLength(1);
    expect([...(await failedEvents(first)), ...(await failedEvents(second))]).toEqual([]);
  });
});

describe('processing: validation against data_schema', () => {
  it('keeps events that fail Strict validation at stage validation with a reason naming the field, and stores the valid ones', async () => {
    const id = await liveDataset('strict', { data_schema: STRICT_SCHEMA, validation_config: { validate: true, mode: 'Strict' } });
    const msgid = unique('strict');
    const good = { id: unique('good'), amount: 1 };
    const wrongType = { id: unique('type'), amount: 'ten' };
    const newField = { id: unique('new'), colour: 'red' };
    await ingestOk(id, [good, wrongType, newField], msgid);

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
    await ingestOk(id, [newField, wrongType], msgid);
    expect((await storedEvents(msgid)).map((row) => row.payload)).toEqual([newField]);
    const failed = await failedEvents(msgid);
    expect(failed.map((row) => row.stage)).toEqual(['validation']);
    expect(failed[0]!.reason).toMatch(/amount/);
  });

  it('stores events of any shape when validation is off', async () => {
    const id = await liveDataset('no_validation', { data_schema: STRICT_SCHEMA, validation_config: { validate: false, mode: 'Strict' } });
    const msgid = unique('novalid');
    const events = [{ id: unique('a'), amount: 'ten' }, { colour: 'red' }];
    await ingestOk(id, events, msgid);
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
  const MASTER = 'rest_users';
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

    const msgid = unique('m2');
    await ingestOk(
      MASTER,
      [
        { userid: u1, name: 'Ann B' },
        { userid: u2, name: 'Bob' },
        { userid: u1, name: 'Ann C' },
      ],
      msgid,
    );
    expect(await masterRecord(u1)).toEqual({ userid: u1, name: 'Ann C' });
    expect(await masterRecord(u2)).toEqual({ userid: u2, name: 'Bob' });
    const count = await gw.sql<{ n: number }>('SELECT count(*)::int AS n FROM master_records WHERE dataset_id = $1 AND record_key IN ($2, $3)', [MASTER, u1, u2]);
    expect(count.rows[0]!.n).toBe(2);
  });

  it('keeps a master event without a value at data_key as failed, naming the key', async () => {
    const msgid = unique('nokey');
    await ingestOk(MASTER, [{ name: 'Nobody' }], msgid);
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
    let response: Response;
    try {
      response = await ingest(id, [good, bad], msgid);
    } finally {
      await gw.sql('ALTER TABLE failed_events DROP CONSTRAINT IF EXISTS no_failures');
    }
    expect(response.status).toBeGreaterThanOrEqual(500);
    expect(response.body.params?.status).toBe('FAILED');
    expect(response.body.result).not.toEqual(INGESTED);
    expect(await storedEvents(msgid)).toEqual([]);
    expect(await failedEvents(msgid)).toEqual([]);
    expect(await storeCounts()).toEqual(before);

    // The dedup key the failed request saw is not held against the retry.
    await ingestOk(id, [good, bad], msgid);
    expect((await storedEvents(msgid)).map((row) => row.payload)).toEqual([good]);
    expect((await failedEvents(msgid)).map((row) => row.stage)).toEqual(['validation']);
  });
});

describe('ingestion counters (GraphQL ingestionStats)', () => {
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
    // A refused body is not an ingest call of the dataset.
    expect((await ingest(id, [], unique('count'))).status).toBe(400);
    expect(await stats(id)).toEqual({ datasetId: id, requests: 2, received: 4, processed: 2, duplicates: 1, failed: 1, rejectedRequests: 0 });
  });

  it('counts refused calls of a dataset without an entry topic, and of an unknown dataset', async () => {
    const id = await liveDataset('counted_no_topic');
    await gw.sql('UPDATE datasets SET entry_topic = NULL WHERE dataset_id = $1', [id]);
    expect((await ingest(id, { id: unique('e') }, unique('rej'))).status).toBe(404);
    expect((await ingest(id, { id: unique('e') }, unique('rej'))).status).toBe(404);
    expect(await stats(id)).toMatchObject({ requests: 0, received: 0, rejectedRequests: 2 });

    expect((await ingest('rest_counted_ghost', { id: unique('e') }, unique('rej'))).status).toBe(404);
    expect(await stats('rest_counted_ghost')).toMatchObject({ requests: 0, rejectedRequests: 1 });
  });
});
