// Rate limits per caller, shared by REST and GraphQL, with a budget of its own for ingestion:
// 429 with Retry-After, in the contract's failure envelope (REST) or as RATE_LIMITED (GraphQL).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { envelope } from '../support/api.js';
import { JWT_ENV, token } from '../support/auth.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

let gw: TestGateway;
let priced: TestGateway;

beforeAll(async () => {
  // Burst 3 then one call every 20 s: nothing refills during a test.
  gw = await startTestGateway({ ...JWT_ENV, RATE_LIMIT_RPS: '0.05', RATE_LIMIT_BURST: '3', RATE_LIMIT_INGEST_RPS: '0.05', RATE_LIMIT_INGEST_BURST: '2' });
  // A budget of 100 tokens that refills once in 1,000 s, one token per 10 of a document's cost.
  priced = await startTestGateway({ ...JWT_ENV, RATE_LIMIT_RPS: '0.001', RATE_LIMIT_BURST: '100', GRAPHQL_COST_PER_TOKEN: '10' });
}, 60_000);

afterAll(async () => {
  await Promise.all([gw?.stop(), priced?.stop()]);
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

  it('charges a GraphQL request once for the whole document, however many root fields it has', async () => {
    const dave = await bearer('dave');
    const fourFields = await gw.http
      .post('/graphql')
      .set('authorization', dave)
      .send({ query: '{ a: template(id: "x") { templateId } b: template(id: "x") { templateId } c: template(id: "x") { templateId } d: template(id: "x") { templateId } }' });
    expect(fourFields.status).toBe(200);
    expect(fourFields.body.data).toEqual({ a: null, b: null, c: null, d: null });
    // Its cost (8) is within one token: two more calls fit in the burst of 3, the third does not.
    expect(fourFields.body.extensions.cost).toBe(8);
    expect((await listTemplates(dave)).status).toBe(200);
    expect((await listTemplates(dave)).status).toBe(200);
    expect((await listTemplates(dave)).status).toBe(429);
  });
});

describe('a GraphQL operation', () => {
  const RATE_LIMIT = 'rateLimit { limit cost remaining resetAt }';
  const CHEAP = `{ ${RATE_LIMIT} }`;
  // 1 + (1 + 100 × 2) for the list, 5 for rateLimit: 207, so 21 tokens.
  const COSTLY = `{ templates(first: 100) { nodes { templateId name } } ${RATE_LIMIT} }`;
  const ask = (authorization: string, query: string) => priced.http.post('/graphql').set('authorization', authorization).send({ query });

  it('pays tokens by its cost, and rateLimit shows the limit, what the operation paid and what is left', async () => {
    const frank = await bearer('frank');
    const startedAt = Date.now();
    const cheap = await ask(frank, CHEAP);
    expect(cheap.status).toBe(200);
    expect(cheap.body.extensions.cost).toBe(5);
    expect(cheap.body.data.rateLimit).toMatchObject({ limit: 100, cost: 1, remaining: 99 });
    // Full again one token's refill (1,000 s) after the one token spent.
    expect(Date.parse(cheap.body.data.rateLimit.resetAt)).toBeGreaterThanOrEqual(startedAt + 990_000);

    const costly = await ask(frank, COSTLY);
    expect(costly.status).toBe(200);
    expect(costly.body.extensions.cost).toBe(207);
    expect(costly.body.data.rateLimit).toMatchObject({ limit: 100, cost: 21, remaining: 78 });
    expect(Date.parse(costly.body.data.rateLimit.resetAt)).toBeGreaterThan(Date.parse(cheap.body.data.rateLimit.resetAt));

    expect((await ask(frank, CHEAP)).body.data.rateLimit).toMatchObject({ cost: 1, remaining: 77 });
  });

  it('is refused with RATE_LIMITED and Retry-After once its cost is more than what is left, and a refused operation pays nothing', async () => {
    const grace = await bearer('grace');
    const remaining: number[] = [];
    for (let i = 0; i < 4; i += 1) remaining.push((await ask(grace, COSTLY)).body.data.rateLimit.remaining);
    expect(remaining).toEqual([79, 58, 37, 16]);
    const refused = await ask(grace, COSTLY);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(1000);
    // `templates` is non-null, so its refusal empties the whole answer.
    expect(refused.body.data).toBeNull();
    expect(new Set(refused.body.errors.map((error: { extensions: { code: string } }) => error.extensions.code))).toEqual(new Set(['RATE_LIMITED']));
    // What is left still buys a cheap one.
    expect((await ask(grace, CHEAP)).body.data.rateLimit).toMatchObject({ cost: 1, remaining: 15 });
  });

  it('costing more than the whole budget is refused with QUERY_COST_OVER_RATE_LIMIT (429, no Retry-After) and pays nothing', async () => {
    const heidi = await bearer('heidi');
    const huge = await ask(heidi, `{ templates(first: 1000) { nodes { templateId name } } }`);
    expect(huge.status).toBe(429);
    expect(huge.headers['retry-after']).toBeUndefined();
    expect(huge.body.errors[0].extensions).toEqual({ code: 'QUERY_COST_OVER_RATE_LIMIT', responseCode: 'TOO_MANY_REQUESTS' });
    expect(huge.body.errors[0].message).toMatch(/costs 2002 \(201 rate-limit tokens at 10 per token\); a caller's budget holds at most 100 tokens/);
    expect((await ask(heidi, CHEAP)).body.data.rateLimit).toMatchObject({ cost: 1, remaining: 99 });
  });

  it('pays the same when the answer is served again from the published cache', async () => {
    const judy = await bearer('judy');
    const list = `{ templates(first: 100) { nodes { templateId name } } }`;
    const answers = [await ask(judy, list), await ask(judy, list)];
    expect(answers.map((answer) => [answer.status, answer.body.extensions.cost])).toEqual([
      [200, 202],
      [200, 202],
    ]);
    expect((await ask(judy, CHEAP)).body.data.rateLimit).toMatchObject({ cost: 1, remaining: 100 - 21 - 21 - 1 });
  });

  it('shares the budget with REST, where each call pays one token whatever it returns', async () => {
    const ivan = await bearer('ivan');
    for (let i = 0; i < 2; i += 1) expect((await priced.http.post('/v2/template/list').set('authorization', ivan).send(envelope('api.query.template.list', {}))).status).toBe(200);
    expect((await ask(ivan, CHEAP)).body.data.rateLimit).toMatchObject({ cost: 1, remaining: 97 });
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
