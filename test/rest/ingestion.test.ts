// Ingestion over the REST compatibility layer, POST /v2/data/in/{dataset_id}: what only REST has.
// The behaviour both transports share is in test/contract/ingestion.ts; here are the success
// envelope with its msgid, the request schema's refusals of the envelope, the msgid echoed in a
// refusal, a body that is not JSON or is over INGEST_BODY_LIMIT (1 MB here), and nesting that only
// a hand-written body can carry. Every test uses msgids and event ids of its own.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { INGEST_API_ID, ingestBody } from '../contract/drivers/ingestion.js';
import { expectFailure as expectRefusal, restOutcome } from '../contract/harness.js';
import { INGESTION_KINDS } from '../contract/ingestion.js';
import { seedDataset, type Json } from '../support/datasets.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { INGESTED_MESSAGE, largeEvents, storeCounts, storedEvents, unique } from '../support/ingestion.js';

let gw: TestGateway;
const EVENTS = 'rest_ingest_events';

beforeAll(async () => {
  gw = await startTestGateway({ INGEST_BODY_LIMIT: '1mb' });
  await seedDataset(gw, EVENTS, 'Live');
});
afterAll(async () => {
  await gw?.stop();
});

function send(payload: unknown): Promise<Response> {
  return gw.http
    .post(`/v2/data/in/${EVENTS}`)
    .set('content-type', 'application/json')
    .send(payload as object);
}

/** A failure envelope of api.data.in with this status and code, an empty trace and a message matching `message`. */
function expectFailure(response: Response, status: number, code: string, message: RegExp): void {
  expect({ status: response.status, id: response.body.id, trace: response.body.error?.trace }).toEqual({ status, id: INGEST_API_ID, trace: '' });
  expectRefusal(restOutcome(response, INGESTION_KINDS), code, message);
}

/** Sends `payload` and expects 400 DATA_INGESTION_INVALID_INPUT with a message matching `message`, and nothing written. */
async function expectRefused(payload: unknown, message: RegExp): Promise<Response> {
  const before = await storeCounts(gw);
  const response = await send(payload);
  expectFailure(response, 400, 'DATA_INGESTION_INVALID_INPUT', message);
  expect(await storeCounts(gw)).toEqual(before);
  return response;
}

it('answers in the success envelope of api.data.in, echoing the msgid', async () => {
  const msgid = unique('single');
  const response = await send(ingestBody({ id: unique('e') }, msgid));
  expect(response.status).toBe(200);
  expect(response.body).toMatchObject({ id: INGEST_API_ID, ver: 'v2', responseCode: 'OK', params: { status: 'SUCCESS', msgid } });
  expect(response.body.result).toEqual({ message: INGESTED_MESSAGE });
  expect(await storedEvents(gw, msgid)).toHaveLength(1);
});

describe('the request schema', () => {
  const valid = () => ingestBody({ id: unique('e') }, unique('bad'));
  it.each<[string, () => Json, RegExp]>([
    ['without id', () => ({ ...valid(), id: undefined }), /^#required must have required property 'id'$/],
    ['with another operation id', () => ({ ...valid(), id: 'api.datasets.read' }), /#properties\/id\/const.*api\.data\.in/],
    ['without ver', () => ({ ...valid(), ver: undefined }), /^#required must have required property 'ver'$/],
    ['without ts', () => ({ ...valid(), ts: undefined }), /^#required must have required property 'ts'$/],
    ['without params', () => ({ ...valid(), params: undefined }), /^#required must have required property 'params'$/],
    ['without params.msgid', () => ({ ...valid(), params: {} }), /#properties\/params\/required must have required property 'msgid'/],
    ['without data', () => ({ ...valid(), data: undefined }), /^#required must have required property 'data'$/],
    ['with data null', () => ({ ...valid(), data: null }), /data/],
  ])('refuses a body %s with 400 DATA_INGESTION_INVALID_INPUT naming the path, and writes nothing', async (_label, make, message) => {
    await expectRefused(make(), message);
  });

  it('echoes the msgid of a refused request', async () => {
    const msgid = unique('echo');
    const response = await send(ingestBody('not an event', msgid));
    expect(response.status).toBe(400);
    expect(response.body.params.msgid).toBe(msgid);
  });
});

describe('the body', () => {
  it('refuses a body that is not JSON with 400 DATA_INGESTION_INVALID_INPUT', async () => {
    await expectRefused('{"id": "api.data.in", "data": [', /JSON/);
  });

  it('refuses a body over INGEST_BODY_LIMIT (1 MB here) with 400 DATA_INGESTION_INVALID_INPUT naming the limit, and writes none of it', async () => {
    await expectRefused(ingestBody(largeEvents(4, 300_000), unique('big')), /1048576/);
  });

  it.each([5_000, 100_000])('refuses an event nested %i objects deep with 400 DATA_INGESTION_INVALID_INPUT naming data, and writes nothing', async (depth) => {
    // Written by hand: the test client's own JSON.stringify cannot write the deepest of them.
    const raw = `{"id":"${INGEST_API_ID}","ver":"v2","ts":"${new Date().toISOString()}","params":{"msgid":"${unique('deep')}"},"data":${'{"n":'.repeat(depth)}1${'}'.repeat(depth)}}`;
    await expectRefused(raw, /^data\/n\/n.* is nested deeper than 32 levels$/);
  });
});
