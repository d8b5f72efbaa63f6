// What only the REST layer of PII analysis has (POST /v2/data/analyze/pii; contract 4.2, 7): the
// envelope and its request schema's refusals. The behaviour both transports share, with the
// built-in and a downstream detector, is in test/contract/pii.ts.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { envelope, expectRestFailure } from '../support/api.js';
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

const API_ID = 'api.data.analyze.pii';

function analyze(request: unknown, msgid?: string): Promise<Response> {
  return gw.http.post('/v2/data/analyze/pii').send(envelope(API_ID, request, msgid));
}

// ---------------------------------------------------------------------------------------------

describe('POST /v2/data/analyze/pii', () => {
  it('answers the contract envelope around the findings', async () => {
    const response = await analyze({ id: 'req-1', dataset_id: 'orders', data: [{ email: 'jane@example.com', amount: 10 }] }, 'pii-msg-1');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: API_ID, ver: 'v2', responseCode: 'OK', params: { status: 'SUCCESS', msgid: 'pii-msg-1' } });
    expect((response.body.result as { field: string }[]).map((finding) => finding.field)).toEqual(['email']);
  });

  it('refuses a request without data with 400 DATA_ANALYZE_PII_INVALID_INPUT naming the path', async () => {
    expectRestFailure(await analyze({ dataset_id: 'orders' }), 400, 'DATA_ANALYZE_PII_INVALID_INPUT', 'BAD_REQUEST', /^#properties\/request\/required must have required property 'data'$/);
  });

  it('refuses a request without dataset_id', async () => {
    expectRestFailure(await analyze({ data: [{ a: 1 }] }), 400, 'DATA_ANALYZE_PII_INVALID_INPUT', 'BAD_REQUEST', /required property 'dataset_id'/);
  });

  it('refuses data that is not a non-empty array of objects, naming the failing record', async () => {
    // Emptiness and the records' kind are the service's rules (issue 34), the same message on GraphQL (test/contract/pii.ts).
    expectRestFailure(await analyze({ dataset_id: 'd', data: [] }), 400, 'DATA_ANALYZE_PII_INVALID_INPUT', 'BAD_REQUEST', /^data must be a non-empty array of record objects$/);
    expectRestFailure(await analyze({ dataset_id: 'd', data: { a: 1 } }), 400, 'DATA_ANALYZE_PII_INVALID_INPUT', 'BAD_REQUEST', /data\/type must be array/);
    expectRestFailure(await analyze({ dataset_id: 'd', data: [{ a: 1 }, 'text'] }), 400, 'DATA_ANALYZE_PII_INVALID_INPUT', 'BAD_REQUEST', /^data\/1 is not a JSON object$/);
  });

  it('refuses unknown request fields and a wrong envelope id', async () => {
    expectRestFailure(await analyze({ dataset_id: 'd', data: [{}], extra: 1 }), 400, 'DATA_ANALYZE_PII_INVALID_INPUT', 'BAD_REQUEST', /must NOT have additional properties: 'extra'/);
    const response = await gw.http.post('/v2/data/analyze/pii').send({ ...envelope(API_ID, { dataset_id: 'd', data: [{}] }), id: 'api.data.in' });
    expectRestFailure(response, 400, 'DATA_ANALYZE_PII_INVALID_INPUT', 'BAD_REQUEST', /#properties\/id\/const must be equal to constant \("api.data.analyze.pii"\)/);
  });
});
