// What one GraphQL request may ask for: depth, aliases, tokens, cost (list pages weighted by
// `first`) and batch length are bounded and configurable; CSRF prevention stays on.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

let gw: TestGateway;
let batching: TestGateway;

beforeAll(async () => {
  [gw, batching] = await Promise.all([
    startTestGateway({ GRAPHQL_MAX_DEPTH: '4', GRAPHQL_MAX_ALIASES: '3', GRAPHQL_MAX_TOKENS: '200', GRAPHQL_MAX_COST: '1000' }),
    startTestGateway({ GRAPHQL_MAX_BATCH: '2' }),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all([gw?.stop(), batching?.stop()]);
});

function post(target: TestGateway, body: unknown) {
  return target.http.post('/graphql').set('content-type', 'application/json').send(body as object);
}

describe('depth', () => {
  it('runs an operation at the limit', async () => {
    const response = await post(gw, { query: '{ templates(first: 1) { edges { node { id } } } }' });
    expect(response.status).toBe(200);
    expect(response.body.errors).toBeUndefined();
  });

  it('refuses an operation one level deeper with 400 before anything runs, fragments included', async () => {
    const tooDeep = await post(gw, { query: '{ datasets(first: 1) { edges { node { live { id } } } } }' });
    expect(tooDeep.status).toBe(400);
    expect(tooDeep.body.errors[0].message).toMatch(/nests 5 levels deep; at most 4/);
    expect(tooDeep.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const throughFragment = await post(gw, { query: '{ datasets(first: 1) { ...Page } } fragment Page on DatasetConnection { nodes { draft { live { id } } } }' });
    expect(throughFragment.status).toBe(400);
    expect(throughFragment.body.errors[0].message).toMatch(/nests 5 levels deep/);
  });
});

describe('aliases', () => {
  it('refuses a document with more aliases than allowed', async () => {
    expect((await post(gw, { query: '{ a: version b: version c: version }' })).status).toBe(200);
    const response = await post(gw, { query: '{ a: version b: version c: version d: version }' });
    expect(response.status).toBe(400);
    expect(response.body.errors[0].message).toMatch(/4 aliases; at most 3/);
  });
});

describe('tokens', () => {
  it('stops parsing a document with more tokens than allowed', async () => {
    const response = await post(gw, { query: `{ ${Array.from({ length: 250 }, () => '__typename').join(' ')} }` });
    expect(response.status).toBe(400);
    expect(response.body.errors[0].message).toMatch(/more (than|that) 200 tokens/);
    expect(response.body.errors[0].extensions.code).toBe('GRAPHQL_PARSE_FAILED');
  });
});

describe('cost', () => {
  it('weighs a list by the page asked for, in the query or in a variable', async () => {
    expect((await post(gw, { query: '{ templates(first: 100) { nodes { id name } } }' })).status).toBe(200);
    const literal = await post(gw, { query: '{ templates(first: 1000) { nodes { id name } } }' });
    expect(literal.status).toBe(400);
    expect(literal.body.errors[0].message).toMatch(/costs 3001; at most 1000/);
    const variable = await post(gw, { query: 'query Q($n: Int) { templates(first: $n) { nodes { id name } } }', variables: { n: 1000 } });
    expect(variable.status).toBe(400);
  });
});

describe('batches', () => {
  it('are refused when batching is off (the default)', async () => {
    const response = await post(gw, [{ query: '{ version }' }, { query: '{ version }' }]);
    expect(response.status).toBe(400);
  });

  it('run up to GRAPHQL_MAX_BATCH operations, and a longer batch is refused whole', async () => {
    const two = await post(batching, [{ query: '{ version }' }, { query: '{ a: version }' }]);
    expect(two.status).toBe(200);
    expect(two.body).toHaveLength(2);
    const three = await post(batching, [{ query: '{ version }' }, { query: '{ version }' }, { query: '{ version }' }]);
    expect(three.status).toBe(400);
    expect(three.body.errors[0].message).toMatch(/at most 2 operations; this one holds 3/);
  });
});

describe('CSRF prevention', () => {
  it('refuses a GET query without a preflight-forcing header', async () => {
    const response = await gw.http.get('/graphql').query({ query: '{ version }' }).set('accept', 'application/json');
    expect(response.status).toBe(400);
    expect(response.text).toMatch(/CSRF/);
  });

  it('answers the same GET with a JSON content type or apollo-require-preflight', async () => {
    const response = await gw.http.get('/graphql').query({ query: '{ version }' }).set('accept', 'application/json').set('apollo-require-preflight', 'true');
    expect(response.status).toBe(200);
    expect(response.body.data.version).toEqual(expect.any(String));
  });
});
