// What only GraphQL's analyzePii has: the refusals its argument types make, and the service's own
// checks that REST's request schema answers first. The behaviour both transports share is in
// test/contract/pii.ts.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { errorCode, graphql, type GraphQLResponse } from '../support/api.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => {
  await gw?.stop();
});

// ---------------------------------------------------------------------------------------------
// Helpers (local to this file)

const ANALYZE = `query Analyze($datasetId: ID!, $records: [JSON!]!) {
  analyzePii(datasetId: $datasetId, records: $records) { field type score reason { code resourceKey region score } }
}`;

function analyze(datasetId: string, records: unknown): Promise<GraphQLResponse> {
  return graphql(gw, ANALYZE, { datasetId, records });
}

/** One error from our services: its contract code and kind, and a message matching `message`. */
function expectFailure(response: GraphQLResponse, code: string, responseCode: string, message: RegExp): void {
  expect(response.status).toBe(200);
  expect(response.errors).toHaveLength(1);
  expect({ code: errorCode(response), responseCode: response.errors![0]!.extensions?.responseCode }).toEqual({ code, responseCode });
  expect(response.errors![0]!.message).toMatch(message);
}

// ---------------------------------------------------------------------------------------------

describe('analyzePii(datasetId, records)', () => {
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
});
