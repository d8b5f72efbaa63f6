// Rate limits per caller, shared by REST and GraphQL, with a budget of its own for ingestion:
// 429 with Retry-After, in the contract's failure envelope (REST) or as RATE_LIMITED (GraphQL).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { envelope } from '../support/api.js';
import { JWT_ENV, token } from '../support/auth.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

let gw: TestGateway;

beforeAll(async () => {
  // Burst 3 then one call every 20 s: nothing refills during a test.
  gw = await startTestGateway({ ...JWT_ENV, RATE_LIMIT_RPS: '0.05', RATE_LIMIT_BURST: '3', RATE_LIMIT_INGEST_RPS: '0.05', RATE_LIMIT_INGEST_BURST: '2' });
}, 60_000);

afterAll(async () => {
  await gw?.stop();
});

const bearer = async (sub: string, roles = ['admin']) => `Bearer ${await token({ sub, roles })}`;

function listTemplates(authorization: string) {
  return gw.http.post('/v2/template/list').set('authorization', authorization).send(envelope('api.query.template.list', {}));
}

function ingest(authorization: string) {
  return gw.http
    .post('/v2/data/in/no-such-dataset')
    .set('authorization', authorization)
    .send({ id: 'api.data.in', ver: 'v2', ts: new Date().toISOString(), params: { msgid: 'm1' }, data: { id: 1 } });
}

describe('a caller over its budget', () => {
  it('gets 429 RATE_LIMITED with Retry-After in the failure envelope, and other callers are not affected', async () => {
    const alice = await bearer('alice');
    for (let i = 0; i < 3; i += 1) expect((await listTemplates(alice)).status).toBe(200);
    const refused = await listTemplates(alice);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.body).toMatchObject({
      id: 'api.query.template.list',
      params: { status: 'FAILED' },
      responseCode: 'TOO_MANY_REQUESTS',
      error: { code: 'RATE_LIMITED', trace: '' },
      result: {},
    });
    expect((await listTemplates(await bearer('bob'))).status).toBe(200);
  });

  it('is refused over GraphQL too: one budget for both transports, 429 with Retry-After', async () => {
    const carol = await bearer('carol');
    for (let i = 0; i < 3; i += 1) expect((await listTemplates(carol)).status).toBe(200);
    const response = await gw.http.post('/graphql').set('authorization', carol).send({ query: '{ templates { totalCount } }' });
    expect(response.status).toBe(429);
    expect(Number(response.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(response.body.errors[0].extensions).toEqual({ code: 'RATE_LIMITED', responseCode: 'TOO_MANY_REQUESTS' });
  });

  it('counts each root field of a GraphQL request', async () => {
    const dave = await bearer('dave');
    const response = await gw.http
      .post('/graphql')
      .set('authorization', dave)
      .send({ query: '{ a: template(id: "x") { id } b: template(id: "x") { id } c: template(id: "x") { id } d: template(id: "x") { id } }' });
    expect(response.status).toBe(429);
    const limited = response.body.errors.filter((error: { extensions: { code: string } }) => error.extensions.code === 'RATE_LIMITED');
    expect(limited.map((error: { path: string[] }) => error.path)).toEqual([['d']]);
  });
});

describe('ingestion', () => {
  it('has a budget of its own: a caller out of general calls can still ingest, until the ingestion budget is spent', async () => {
    const erin = await bearer('erin', ['dataset_creator']);
    for (let i = 0; i < 3; i += 1) await listTemplates(erin);
    expect((await listTemplates(erin)).status).toBe(429);
    // The dataset does not exist: 404, but the call was admitted.
    expect((await ingest(erin)).status).toBe(404);
    expect((await ingest(erin)).status).toBe(404);
    const refused = await ingest(erin);
    expect(refused.status).toBe(429);
    expect(refused.body.error.message).toMatch(/ingestion calls/);
  });
});

describe('refused callers', () => {
  it('spend nothing: calls without credentials are answered 401 however many there are', async () => {
    for (let i = 0; i < 6; i += 1) expect((await gw.http.post('/v2/template/list').send(envelope('api.query.template.list', {}))).status).toBe(401);
  });
});
