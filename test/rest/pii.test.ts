// PII analysis over the REST compatibility layer: POST /v2/data/analyze/pii (contract 2.6, 4.2, 7;
// issue 8), with the built-in detectors and with a downstream detector (a fake Presidio analyzer
// started by this file). Mirrors test/graphql/pii.test.ts rule by rule.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { envelope } from '../support/api.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { startHttpStub, type HttpStub } from '../support/http-stub.js';
import { callFor, CUSTOMER_FINDINGS, customerRecords, DOWNSTREAM_FINDINGS, DOWNSTREAM_RECORDS, fakePresidio } from '../support/pii.js';

let gw: TestGateway;
/** Gateway whose PII detector is the stub, answering within 500 ms or failing. */
let downstream: TestGateway;
let presidio: HttpStub;

beforeAll(async () => {
  presidio = await startHttpStub();
  [gw, downstream] = await Promise.all([startTestGateway({ PII_MAX_RECORDS: '50', PII_MAX_BYTES: '16kb' }), startTestGateway({ PII_SERVICE_URL: presidio.url, PII_SERVICE_TIMEOUT_MS: '500' })]);
}, 60_000);
afterAll(async () => {
  await Promise.all([gw?.stop(), downstream?.stop()]);
  await presidio?.close();
});

// ---------------------------------------------------------------------------------------------
// Helpers (local to this file)

const API_ID = 'api.data.analyze.pii';

function analyze(request: unknown, target: TestGateway = gw, msgid?: string): Promise<Response> {
  return target.http.post('/v2/data/analyze/pii').send(envelope(API_ID, request, msgid));
}

async function analyzeOk(request: unknown, target: TestGateway = gw): Promise<unknown[]> {
  const response = await analyze(request, target);
  expect({ status: response.status, error: response.body.error }).toEqual({ status: 200, error: undefined });
  return response.body.result as unknown[];
}

/** A failure envelope with this status, code, kind, and a message matching `message`. */
function expectFailure(response: Response, status: number, code: string, responseCode: string, message: RegExp): void {
  expect({ status: response.status, code: response.body.error?.code, responseCode: response.body.responseCode, state: response.body.params?.status }).toEqual({
    status,
    code,
    responseCode,
    state: 'FAILED',
  });
  expect(response.body.error.message).toMatch(message);
  expect(response.body.error.trace).toBe('');
}

// ---------------------------------------------------------------------------------------------

describe('POST /v2/data/analyze/pii with the built-in detectors', () => {
  it('answers the contract envelope with one finding per personal field: {field, type, score, reason[{code, resourceKey, region, score}]}', async () => {
    const response = await analyze({ id: 'req-1', dataset_id: 'orders', data: [{ email: 'jane@example.com', amount: 10 }] }, gw, 'pii-msg-1');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: API_ID, ver: 'v2', responseCode: 'OK', params: { status: 'SUCCESS', msgid: 'pii-msg-1' } });
    expect(response.body.result).toEqual([
      {
        field: 'email',
        type: 'email',
        score: 0.97,
        reason: [
          { code: 'email', resourceKey: 'pii.value.email', region: '', score: 0.95 },
          { code: 'field_name', resourceKey: 'pii.field_name.email', region: '', score: 0.45 },
        ],
      },
    ]);
  });

  it('examines every record and every nested field by dotted path, and lists only the personal ones', async () => {
    // The original looked at the first record's top-level keys only: it would find nothing here.
    expect(await analyzeOk({ dataset_id: 'orders', data: customerRecords() })).toEqual(CUSTOMER_FINDINGS);
  });

  it('says which detector and region fired for regional identifiers', async () => {
    const result = (await analyzeOk({
      dataset_id: 'kyc',
      data: [{ kyc: { aadhaar: '2341 2341 2346', pan: 'ABCPE1234F', ssn: '123-45-6788' } }],
    })) as { field: string; reason: { code: string; region: string }[] }[];
    expect(result.map((finding) => [finding.field, finding.reason[0]])).toEqual([
      ['kyc.aadhaar', { code: 'aadhaar', resourceKey: 'pii.value.aadhaar', region: 'IN', score: 0.85 }],
      ['kyc.pan', { code: 'pan', resourceKey: 'pii.value.pan', region: 'IN', score: 0.85 }],
      ['kyc.ssn', { code: 'ssn', resourceKey: 'pii.value.ssn', region: 'US', score: 0.75 }],
    ]);
  });

  it('finds nothing in look-alikes: numbers failing Luhn, invalid IBANs, order ids shaped like phone numbers', async () => {
    const data = [
      { card_number: '4111111111111112', iban: 'DE89370400440532013001', order_id: '4155552671', aadhaar: '2341 2341 2347' },
      { card_number: '4111 1111 1111 1113', iban: 'GB82WEST12345698765433', order_id: '9876543210', aadhaar: '6728 0385 2801' },
    ];
    expect(await analyzeOk({ dataset_id: 'lookalikes', data })).toEqual([]);
  });

  it('refuses a request without data with 400 DATA_ANALYZE_PII_INVALID_INPUT naming the path', async () => {
    expectFailure(await analyze({ dataset_id: 'orders' }), 400, 'DATA_ANALYZE_PII_INVALID_INPUT', 'BAD_REQUEST', /^#properties\/request\/required must have required property 'data'$/);
  });

  it('refuses a request without dataset_id', async () => {
    expectFailure(await analyze({ data: [{ a: 1 }] }), 400, 'DATA_ANALYZE_PII_INVALID_INPUT', 'BAD_REQUEST', /required property 'dataset_id'/);
  });

  it('refuses data that is not a non-empty array of objects, naming the failing record', async () => {
    expectFailure(await analyze({ dataset_id: 'd', data: [] }), 400, 'DATA_ANALYZE_PII_INVALID_INPUT', 'BAD_REQUEST', /data\/minItems must NOT have fewer than 1 items/);
    expectFailure(await analyze({ dataset_id: 'd', data: { a: 1 } }), 400, 'DATA_ANALYZE_PII_INVALID_INPUT', 'BAD_REQUEST', /data\/type must be array/);
    expectFailure(await analyze({ dataset_id: 'd', data: [{ a: 1 }, 'text'] }), 400, 'DATA_ANALYZE_PII_INVALID_INPUT', 'BAD_REQUEST', /must be object at \/request\/data\/1$/);
  });

  it('refuses unknown request fields and a wrong envelope id', async () => {
    expectFailure(await analyze({ dataset_id: 'd', data: [{}], extra: 1 }), 400, 'DATA_ANALYZE_PII_INVALID_INPUT', 'BAD_REQUEST', /must NOT have additional properties: 'extra'/);
    const response = await gw.http.post('/v2/data/analyze/pii').send({ ...envelope(API_ID, { dataset_id: 'd', data: [{}] }), id: 'api.data.in' });
    expectFailure(response, 400, 'DATA_ANALYZE_PII_INVALID_INPUT', 'BAD_REQUEST', /#properties\/id\/const must be equal to constant \("api.data.analyze.pii"\)/);
  });

  it('refuses more records than PII_MAX_RECORDS (50 here), and records larger than PII_MAX_BYTES (16 kB here)', async () => {
    const many = Array.from({ length: 51 }, (_, i) => ({ n: i }));
    expectFailure(await analyze({ dataset_id: 'd', data: many }), 400, 'DATA_ANALYZE_PII_INVALID_INPUT', 'BAD_REQUEST', /^data holds 51 records; at most 50 fit in one call$/);
    const large = [{ text: 'x'.repeat(17 * 1024) }];
    expectFailure(await analyze({ dataset_id: 'd', data: large }), 400, 'DATA_ANALYZE_PII_INVALID_INPUT', 'BAD_REQUEST', /^the records take \d+ bytes; at most 16384 fit in one call$/);
  });

  it('refuses records nested deeper than 32 levels, naming where', async () => {
    let deep: Record<string, unknown> = { leaf: 'x' };
    for (let i = 0; i < 40; i++) deep = { level: deep };
    expectFailure(await analyze({ dataset_id: 'd', data: [deep] }), 400, 'DATA_ANALYZE_PII_INVALID_INPUT', 'BAD_REQUEST', /^data\/0\/level\/level\/.* is nested deeper than 32 levels$/);
  });
});

describe('POST /v2/data/analyze/pii with a downstream detector (PII_SERVICE_URL)', () => {
  it("sends each field's values to the analyzer and maps its entities to the same findings", async () => {
    presidio.requests.length = 0;
    presidio.answer = fakePresidio;
    expect(await analyzeOk({ id: 'r1', dataset_id: 'users', data: DOWNSTREAM_RECORDS }, downstream)).toEqual(DOWNSTREAM_FINDINGS);
    // One call per field, values one per line, the field's name as context words.
    expect(presidio.requests).toHaveLength(6);
    expect(presidio.requests.every((request) => request.method === 'POST' && request.path === '/analyze' && request.headers['content-type'] === 'application/json')).toBe(true);
    expect(callFor(presidio, 'jane@example.com\njohn@example.org')).toEqual({ text: 'jane@example.com\njohn@example.org', language: 'en', context: ['email'], correlation_id: 'users' });
  });

  it.each([
    [401, { detail: 'Not authenticated' }],
    [500, { detail: 'Internal error' }],
  ])('answers 500 ERR_BAD_REQUEST (responseCode INTERNAL_SERVER_ERROR) naming the status when the analyzer answers %d', async (status, body) => {
    presidio.answer = () => ({ status, body });
    expectFailure(
      await analyze({ dataset_id: 'users', data: DOWNSTREAM_RECORDS }, downstream),
      500,
      'ERR_BAD_REQUEST',
      'INTERNAL_SERVER_ERROR',
      new RegExp(`^Request failed with status code ${status}: the PII detector refused the call \\(.*${body.detail}.*\\)$`),
    );
  });

  it('answers 500 ERR_BAD_REQUEST when the analyzer does not answer in time (PII_SERVICE_TIMEOUT_MS, 500 ms here)', async () => {
    presidio.answer = () => ({ status: 200, body: [], delayMs: 2_000 });
    const started = Date.now();
    expectFailure(await analyze({ dataset_id: 'users', data: DOWNSTREAM_RECORDS }, downstream), 500, 'ERR_BAD_REQUEST', 'INTERNAL_SERVER_ERROR', /did not answer within 500 ms/);
    expect(Date.now() - started).toBeLessThan(1_900);
  });

  it('answers 500 ERR_BAD_REQUEST when the analyzer answers something that is not a list of results', async () => {
    presidio.answer = () => ({ status: 200, body: { result: 'ok' } });
    expectFailure(
      await analyze({ dataset_id: 'users', data: DOWNSTREAM_RECORDS }, downstream),
      500,
      'ERR_BAD_REQUEST',
      'INTERNAL_SERVER_ERROR',
      /answered HTTP 200 with a body that is not a list of recognizer results/,
    );
    presidio.answer = () => ({ status: 200, text: '<html>proxy</html>' });
    expectFailure(await analyze({ dataset_id: 'users', data: DOWNSTREAM_RECORDS }, downstream), 500, 'ERR_BAD_REQUEST', 'INTERNAL_SERVER_ERROR', /answered HTTP 200 with a body that is not JSON/);
  });

  it('checks the request before calling the analyzer', async () => {
    presidio.requests.length = 0;
    expectFailure(await analyze({ dataset_id: 'users', data: ['x'] }, downstream), 400, 'DATA_ANALYZE_PII_INVALID_INPUT', 'BAD_REQUEST', /\/request\/data\/0/);
    expect(presidio.requests).toEqual([]);
  });
});
