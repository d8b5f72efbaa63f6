// Length limits on every JSON body (JSON_MAX_STRING_LENGTH, JSON_MAX_ARRAY_LENGTH): a string value
// or object key over the limit, or an array with too many items, anywhere in a body, free-form
// parts included (a dataset definition's sample data, an event), is refused at the edge with the
// entry's own bad-input code, 400, and a message naming the path, the limit and the setting; nothing
// is stored. At the limit exactly is accepted.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { envelope, ISO_WITH_OFFSET, UUID_PATTERN } from '../support/api.js';
import { definition, seedDataset, type Json } from '../support/datasets.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

const MAX_STRING = 1000;
const MAX_ARRAY = 50;
const LIVE = 'json-limits-live';

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({ JSON_MAX_STRING_LENGTH: String(MAX_STRING), JSON_MAX_ARRAY_LENGTH: String(MAX_ARRAY), INGEST_MAX_BATCH: String(MAX_ARRAY) });
  await seedDataset(gw, LIVE, 'Live');
}, 60_000);
afterAll(async () => {
  await gw?.stop();
});

function importDataset(request: Json): Promise<Response> {
  return gw.http.post('/v2/datasets/import').send(envelope('api.datasets.import', request, 'limits-import'));
}

function ingest(data: unknown, msgid: string): Promise<Response> {
  return gw.http.post(`/v2/data/in/${LIVE}`).send({ id: 'api.data.in', ver: 'v2', ts: new Date().toISOString(), params: { msgid }, data });
}

async function datasetRows(id: string): Promise<number> {
  return (await gw.sql<{ n: number }>('SELECT count(*)::int AS n FROM datasets WHERE dataset_id = $1', [id])).rows[0]!.n;
}

async function eventRows(msgid: string): Promise<number> {
  return (await gw.sql<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE msgid = $1', [msgid])).rows[0]!.n;
}

/** The failure envelope of a refused body: the entry's id and bad-input code, and `message` in it. */
function expectRefused(response: Response, apiId: string, code: string, message: string, msgid: string): void {
  expect({ status: response.status, code: response.body?.error?.code }).toEqual({ status: 400, code });
  expect(response.body).toMatchObject({ id: apiId, ver: 'v2', responseCode: 'BAD_REQUEST', params: { status: 'FAILED', msgid }, error: { trace: '' }, result: {} });
  expect(response.body.ts).toMatch(ISO_WITH_OFFSET);
  expect(response.body.params.resmsgid).toMatch(UUID_PATTERN);
  expect(response.body.error.message).toBe(message);
}

describe('a string over JSON_MAX_STRING_LENGTH', () => {
  it('deep inside a dataset definition is refused with DATASET_IMPORT_INVALID_CONFIGS, naming its path, and no dataset is stored', async () => {
    const id = 'json-limits-long-sample';
    const response = await importDataset(definition(id, { sample_data: { nested: { rows: [{ ok: 'fine' }, { note: 'x'.repeat(MAX_STRING + 1) }] } } }));
    expectRefused(
      response,
      'api.datasets.import',
      'DATASET_IMPORT_INVALID_CONFIGS',
      `the string at /request/sample_data/nested/rows/1/note is ${MAX_STRING + 1} characters long; the limit is ${MAX_STRING} (JSON_MAX_STRING_LENGTH)`,
      'limits-import',
    );
    expect(await datasetRows(id)).toBe(0);
    expect((await gw.http.get(`/v2/datasets/read/${id}`).query({ mode: 'edit' })).status).toBe(404);
  });

  it('in an ingested event is refused with DATA_INGESTION_INVALID_INPUT, and no event of the batch is stored', async () => {
    const msgid = 'limits-long-event';
    const response = await ingest(
      [
        { id: 'e1', amount: 1 },
        { id: 'e2', payload: { text: 'y'.repeat(MAX_STRING + 1) } },
      ],
      msgid,
    );
    expectRefused(
      response,
      'api.data.in',
      'DATA_INGESTION_INVALID_INPUT',
      `the string at /data/1/payload/text is ${MAX_STRING + 1} characters long; the limit is ${MAX_STRING} (JSON_MAX_STRING_LENGTH)`,
      msgid,
    );
    expect(await eventRows(msgid)).toBe(0);
  });

  it('is counted in characters: a string of MAX characters outside the Basic Multilingual Plane passes, one more does not', async () => {
    const msgid = 'limits-astral';
    // Each 🙂 is two UTF-16 units, one character (as JSON Schema's maxLength counts).
    expect((await ingest([{ id: 'a1', text: '🙂'.repeat(MAX_STRING) }], msgid)).status).toBe(200);
    expect(await eventRows(msgid)).toBe(1);
    const refused = await ingest([{ id: 'a2', text: '🙂'.repeat(MAX_STRING + 1) }], 'limits-astral-over');
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(new RegExp(`is ${MAX_STRING + 1} characters long`));
  });
});

describe('an object key over JSON_MAX_STRING_LENGTH', () => {
  it('is refused with a short message naming where it is, and nothing is stored', async () => {
    const msgid = 'limits-long-key';
    const key = 'k'.repeat(MAX_STRING + 1);
    const response = await ingest([{ id: 'k1', [key]: 1 }], msgid);
    expect({ status: response.status, code: response.body.error?.code }).toEqual({ status: 400, code: 'DATA_INGESTION_INVALID_INPUT' });
    const message = response.body.error.message as string;
    expect(message).toMatch(/^the object key at \/data\/0\/k{64}… is 1001 characters long; the limit is 1000 \(JSON_MAX_STRING_LENGTH\)$/);
    expect(await eventRows(msgid)).toBe(0);

    const id = 'json-limits-long-key';
    const imported = await importDataset(definition(id, { sample_data: { [key]: 'v' } }));
    expect({ status: imported.status, code: imported.body.error?.code }).toEqual({ status: 400, code: 'DATASET_IMPORT_INVALID_CONFIGS' });
    expect(imported.body.error.message).toMatch(/^the object key at \/request\/sample_data\/k{64}… is 1001 characters/);
    expect(await datasetRows(id)).toBe(0);
  });
});

describe('an array over JSON_MAX_ARRAY_LENGTH', () => {
  it('inside an event is refused, naming its path, and nothing is stored', async () => {
    const msgid = 'limits-long-array';
    const response = await ingest([{ id: 'r1', tags: Array.from({ length: MAX_ARRAY + 1 }, (_, i) => i) }], msgid);
    expectRefused(response, 'api.data.in', 'DATA_INGESTION_INVALID_INPUT', `the array at /data/0/tags has ${MAX_ARRAY + 1} items; the limit is ${MAX_ARRAY} (JSON_MAX_ARRAY_LENGTH)`, msgid);
    expect(await eventRows(msgid)).toBe(0);
  });

  it('inside a dataset definition is refused with the import code, and no dataset is stored', async () => {
    const id = 'json-limits-long-tags';
    const response = await importDataset(definition(id, { tags: Array.from({ length: MAX_ARRAY + 1 }, (_, i) => `t${i}`) }));
    expectRefused(
      response,
      'api.datasets.import',
      'DATASET_IMPORT_INVALID_CONFIGS',
      `the array at /request/tags has ${MAX_ARRAY + 1} items; the limit is ${MAX_ARRAY} (JSON_MAX_ARRAY_LENGTH)`,
      'limits-import',
    );
    expect(await datasetRows(id)).toBe(0);
  });

  it('is checked on every entry with a body, before its own schema', async () => {
    const response = await gw.http.post('/v2/template/list').send(envelope('api.query.template.list', { filters: { nope: Array.from({ length: MAX_ARRAY + 1 }, () => 0) } }, 'limits-list'));
    expectRefused(
      response,
      'api.query.template.list',
      'QUERY_TEMPLATE_INVALID_INPUT',
      `the array at /request/filters/nope has ${MAX_ARRAY + 1} items; the limit is ${MAX_ARRAY} (JSON_MAX_ARRAY_LENGTH)`,
      'limits-list',
    );
  });
});

describe('text that is not valid Unicode (an unpaired surrogate, which JSON can spell as \\ud800)', () => {
  const NOT_UNICODE = 'is not valid Unicode text: it holds an unpaired surrogate (such as \\ud800 without its pair)';

  it("in a dataset id is refused with the entry's code instead of failing in the database layer (found by the fuzz suite)", async () => {
    const response = await gw.http
      .post('/v2/datasets/status-transition')
      .send(envelope('api.datasets.status-transition', { dataset_id: '\u202e\u0000💥\ud800', status: 'Retire' }, 'limits-surrogate'));
    expectRefused(response, 'api.datasets.status-transition', 'DATASET_STATUS_TRANSITION_INVALID_INPUT', `the string at /request/dataset_id ${NOT_UNICODE}`, 'limits-surrogate');
  });

  it('in an event value or key is refused, and no event of the batch is stored; a surrogate pair (an emoji) is fine', async () => {
    const inValue = await ingest(
      [
        { id: 's1', text: 'ok 💥' },
        { id: 's2', text: 'half \udc00 of a pair' },
      ],
      'limits-surrogate-value',
    );
    expectRefused(inValue, 'api.data.in', 'DATA_INGESTION_INVALID_INPUT', `the string at /data/1/text ${NOT_UNICODE}`, 'limits-surrogate-value');
    const inKey = await ingest([{ id: 's3', ['key\ud83d']: 1 }], 'limits-surrogate-key');
    expectRefused(inKey, 'api.data.in', 'DATA_INGESTION_INVALID_INPUT', `the object key at /data/0/key\ud83d ${NOT_UNICODE}`, 'limits-surrogate-key');
    expect(await eventRows('limits-surrogate-value')).toBe(0);
    expect(await eventRows('limits-surrogate-key')).toBe(0);
    const pairs = await ingest([{ id: 's4', text: 'emoji 💥 and 𝄞' }], 'limits-surrogate-pairs');
    expect(pairs.status).toBe(200);
    expect(await eventRows('limits-surrogate-pairs')).toBe(1);
  });
});

describe('at the limits exactly', () => {
  it('a string, a key and an array are accepted and stored', async () => {
    const msgid = 'limits-at-limit';
    const events = Array.from({ length: MAX_ARRAY }, (_, i) => ({ id: `at-${i}`, text: 's'.repeat(MAX_STRING), ['k'.repeat(MAX_STRING)]: [i] }));
    const response = await ingest(events, msgid);
    expect({ status: response.status, error: response.body.error }).toEqual({ status: 200, error: undefined });
    expect(await eventRows(msgid)).toBe(MAX_ARRAY);

    const id = 'json-limits-at-limit';
    const imported = await importDataset(definition(id, { tags: Array.from({ length: MAX_ARRAY }, (_, i) => `t${i}`), sample_data: { note: 'n'.repeat(MAX_STRING) } }));
    expect({ status: imported.status, error: imported.body.error }).toEqual({ status: 200, error: undefined });
    expect(await datasetRows(id)).toBe(1);
  });
});

describe('a hostile document', () => {
  it('nested 100,000 levels deep is walked to the bottom without overflowing the stack, and the message stays short', async () => {
    const depth = 100_000;
    const innermost = JSON.stringify(Array.from({ length: MAX_ARRAY + 1 }, () => 0));
    const text = `{"id":"api.query.template.list","ver":"v2","ts":"t","params":{"msgid":"deep"},"request":${'['.repeat(depth)}${innermost}${']'.repeat(depth)}}`;
    const response = await gw.http.post('/v2/template/list').set('content-type', 'application/json').send(text);
    expect({ status: response.status, code: response.body.error?.code }).toEqual({ status: 400, code: 'QUERY_TEMPLATE_INVALID_INPUT' });
    // The path's middle is left out: /request, 19 levels, …, the last 10.
    expect(response.body.error.message).toBe(`the array at /request${'/0'.repeat(19)}/…${'/0'.repeat(10)} has ${MAX_ARRAY + 1} items; the limit is ${MAX_ARRAY} (JSON_MAX_ARRAY_LENGTH)`);
    expect((await gw.http.get('/healthz')).status).toBe(200);
  });
});
