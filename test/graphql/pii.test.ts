// PII analysis over GraphQL: Query.analyzePii(datasetId, records) (contract 2.6, 4.2, 7; issue 8),
// with the built-in detectors and with a downstream detector (a fake Presidio analyzer started by
// this file). Mirrors test/rest/pii.test.ts rule by rule.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { errorCode, graphql, type GraphQLResponse } from '../support/api.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { startHttpStub, type HttpStub } from '../support/http-stub.js';
import { callFor, CUSTOMER_FINDINGS, customerRecords, DOWNSTREAM_FINDINGS, DOWNSTREAM_RECORDS, fakePresidio } from '../support/pii.js';

let gw: TestGateway;
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

const ANALYZE = `query Analyze($datasetId: ID!, $records: [JSON!]!) {
  analyzePii(datasetId: $datasetId, records: $records) { field type score reason { code resourceKey region score } }
}`;

function analyze(datasetId: string, records: unknown, target: TestGateway = gw): Promise<GraphQLResponse> {
  return graphql(target, ANALYZE, { datasetId, records });
}

async function analyzeOk(datasetId: string, records: unknown, target: TestGateway = gw): Promise<unknown[]> {
  const response = await analyze(datasetId, records, target);
  expect(response.errors).toBeUndefined();
  return response.data!.analyzePii as unknown[];
}

/** One error from our services: its contract code and kind, and a message matching `message`. */
function expectFailure(response: GraphQLResponse, code: string, responseCode: string, message: RegExp): void {
  expect(response.status).toBe(200);
  expect(response.errors).toHaveLength(1);
  expect({ code: errorCode(response), responseCode: response.errors![0]!.extensions?.responseCode }).toEqual({ code, responseCode });
  expect(response.errors![0]!.message).toMatch(message);
}

// ---------------------------------------------------------------------------------------------

describe('analyzePii with the built-in detectors', () => {
  it('returns one finding per personal field: {field, type, score, reason[{code, resourceKey, region, score}]}', async () => {
    expect(await analyzeOk('orders', [{ email: 'jane@example.com', amount: 10 }])).toEqual([
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
    expect(await analyzeOk('orders', customerRecords())).toEqual(CUSTOMER_FINDINGS);
  });

  it('says which detector and region fired for regional identifiers', async () => {
    const result = (await analyzeOk('kyc', [{ kyc: { aadhaar: '2341 2341 2346', pan: 'ABCPE1234F', ssn: '123-45-6788' } }])) as { field: string; reason: unknown[] }[];
    expect(result.map((finding) => [finding.field, finding.reason[0]])).toEqual([
      ['kyc.aadhaar', { code: 'aadhaar', resourceKey: 'pii.value.aadhaar', region: 'IN', score: 0.85 }],
      ['kyc.pan', { code: 'pan', resourceKey: 'pii.value.pan', region: 'IN', score: 0.85 }],
      ['kyc.ssn', { code: 'ssn', resourceKey: 'pii.value.ssn', region: 'US', score: 0.75 }],
    ]);
  });

  it('finds nothing in look-alikes: numbers failing Luhn, invalid IBANs, order ids shaped like phone numbers', async () => {
    const records = [
      { card_number: '4111111111111112', iban: 'DE89370400440532013001', order_id: '4155552671', aadhaar: '2341 2341 2347' },
      { card_number: '4111 1111 1111 1113', iban: 'GB82WEST12345698765433', order_id: '9876543210', aadhaar: '6728 0385 2801' },
    ];
    expect(await analyzeOk('lookalikes', records)).toEqual([]);
  });

  it('is refused by GraphQL without records or datasetId', async () => {
    const missing = await graphql(gw, 'query { analyzePii(datasetId: "d") { field } }');
    expect(missing.status).toBe(400);
    expect(missing.errors?.[0]?.message).toMatch(/argument "records" of type "\[JSON!\]!" is required/);
    const noDataset = await graphql(gw, 'query($r: [JSON!]!) { analyzePii(records: $r) { field } }', { r: [{}] });
    expect(noDataset.status).toBe(400);
    expect(noDataset.errors?.[0]?.message).toMatch(/argument "datasetId" of type "ID!" is required/);
  });

  it('refuses records that are not a non-empty list of objects, naming the failing record', async () => {
    expectFailure(await analyze('d', []), 'DATA_ANALYZE_PII_INVALID_INPUT', 'BAD_REQUEST', /^data must be a non-empty array of record objects$/);
    expectFailure(await analyze('d', [{ a: 1 }, 'text']), 'DATA_ANALYZE_PII_INVALID_INPUT', 'BAD_REQUEST', /^data\/1 is not a JSON object$/);
    expectFailure(await analyze(' ', [{ a: 1 }]), 'DATA_ANALYZE_PII_INVALID_INPUT', 'BAD_REQUEST', /^dataset_id must be a non-empty string/);
  });

  it('refuses more records than PII_MAX_RECORDS (50 here), and records larger than PII_MAX_BYTES (16 kB here)', async () => {
    expectFailure(
      await analyze(
        'd',
        Array.from({ length: 51 }, (_, i) => ({ n: i })),
      ),
      'DATA_ANALYZE_PII_INVALID_INPUT',
      'BAD_REQUEST',
      /^data holds 51 records; at most 50 fit in one call$/,
    );
    expectFailure(await analyze('d', [{ text: 'x'.repeat(17 * 1024) }]), 'DATA_ANALYZE_PII_INVALID_INPUT', 'BAD_REQUEST', /^the records take \d+ bytes; at most 16384 fit in one call$/);
  });

  it('refuses records nested deeper than 32 levels, naming where', async () => {
    let deep: Record<string, unknown> = { leaf: 'x' };
    for (let i = 0; i < 40; i++) deep = { level: deep };
    expectFailure(await analyze('d', [deep]), 'DATA_ANALYZE_PII_INVALID_INPUT', 'BAD_REQUEST', /^data\/0\/level\/level\/.* is nested deeper than 32 levels$/);
  });
});

describe('analyzePii with a downstream detector (PII_SERVICE_URL)', () => {
  it("sends each field's values to the analyzer and maps its entities to the same findings", async () => {
    presidio.requests.length = 0;
    presidio.answer = fakePresidio;
    expect(await analyzeOk('users', DOWNSTREAM_RECORDS, downstream)).toEqual(DOWNSTREAM_FINDINGS);
    expect(presidio.requests).toHaveLength(6);
    expect(callFor(presidio, 'jane@example.com\njohn@example.org')).toEqual({ text: 'jane@example.com\njohn@example.org', language: 'en', context: ['email'], correlation_id: 'users' });
  });

  it.each([
    [401, { detail: 'Not authenticated' }],
    [500, { detail: 'Internal error' }],
  ])('fails with ERR_BAD_REQUEST (responseCode INTERNAL_SERVER_ERROR) naming the status when the analyzer answers %d', async (status, body) => {
    presidio.answer = () => ({ status, body });
    expectFailure(
      await analyze('users', DOWNSTREAM_RECORDS, downstream),
      'ERR_BAD_REQUEST',
      'INTERNAL_SERVER_ERROR',
      new RegExp(`^Request failed with status code ${status}: the PII detector refused the call \\(.*${body.detail}.*\\)$`),
    );
  });

  it('fails with ERR_BAD_REQUEST when the analyzer does not answer in time (PII_SERVICE_TIMEOUT_MS, 500 ms here)', async () => {
    presidio.answer = () => ({ status: 200, body: [], delayMs: 2_000 });
    const started = Date.now();
    expectFailure(await analyze('users', DOWNSTREAM_RECORDS, downstream), 'ERR_BAD_REQUEST', 'INTERNAL_SERVER_ERROR', /did not answer within 500 ms/);
    expect(Date.now() - started).toBeLessThan(1_900);
  });

  it('fails with ERR_BAD_REQUEST when the analyzer answers something that is not a list of results', async () => {
    presidio.answer = () => ({ status: 200, body: { result: 'ok' } });
    expectFailure(await analyze('users', DOWNSTREAM_RECORDS, downstream), 'ERR_BAD_REQUEST', 'INTERNAL_SERVER_ERROR', /answered HTTP 200 with a body that is not a list of recognizer results/);
    presidio.answer = () => ({ status: 200, text: '<html>proxy</html>' });
    expectFailure(await analyze('users', DOWNSTREAM_RECORDS, downstream), 'ERR_BAD_REQUEST', 'INTERNAL_SERVER_ERROR', /answered HTTP 200 with a body that is not JSON/);
  });

  it('checks the request before calling the analyzer', async () => {
    presidio.requests.length = 0;
    expectFailure(await analyze('users', ['x'], downstream), 'DATA_ANALYZE_PII_INVALID_INPUT', 'BAD_REQUEST', /^data\/0 is not a JSON object$/);
    expect(presidio.requests).toEqual([]);
  });
});
