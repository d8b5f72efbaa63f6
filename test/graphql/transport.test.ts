// GraphQL over HTTP: POST and GET, malformed requests, CSRF prevention, GraphiQL and introspection
// switches, and what error responses do not reveal.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { errorCode, graphql, UUID_PATTERN } from '../support/api.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

const PACKAGE_VERSION = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;
const INTROSPECTION = '{ __schema { queryType { name } } }';

/** Every error's extensions, flattened, so no field (stacktrace, exception) can hide anywhere. */
function expectNoStackTraces(body: { errors?: { message: string; extensions?: Record<string, unknown> }[] }): void {
  expect(Array.isArray(body.errors)).toBe(true);
  for (const error of body.errors ?? []) {
    expect(error.extensions ?? {}).not.toHaveProperty('stacktrace');
    expect(error.extensions ?? {}).not.toHaveProperty('exception');
    expect(JSON.stringify(error)).not.toMatch(/\n\s+at |node_modules|\.ts:\d+/);
  }
}

describe('GraphQL over HTTP with the default settings', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway();
  });
  afterAll(async () => {
    await gw?.stop();
  });

  it('answers POST /graphql { version } with the gateway version', async () => {
    const response = await graphql(gw, '{ version }');
    expect(response.status).toBe(200);
    expect(response.errors).toBeUndefined();
    expect(response.data).toEqual({ version: PACKAGE_VERSION });
  });

  it('sends an x-request-id on GraphQL responses too', async () => {
    const generated = await gw.http.post('/graphql').send({ query: '{ version }' });
    expect(generated.headers['x-request-id']).toMatch(UUID_PATTERN);
    const echoed = await gw.http.post('/graphql').set('x-request-id', 'gql-req-7').send({ query: '{ version }' });
    expect(echoed.headers['x-request-id']).toBe('gql-req-7');
  });

  it('answers a syntax error with GRAPHQL_PARSE_FAILED and no data', async () => {
    const response = await graphql(gw, '{ version ');
    expect(response.status).toBe(400);
    expect(errorCode(response)).toBe('GRAPHQL_PARSE_FAILED');
    expect(response.errors?.[0]?.message).toMatch(/^Syntax Error/);
    expect(response.data).toBeUndefined();
  });

  it('answers a field the schema does not have with GRAPHQL_VALIDATION_FAILED naming the field', async () => {
    const response = await graphql(gw, '{ nope }');
    expect(response.status).toBe(400);
    expect(errorCode(response)).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(response.errors?.[0]?.message).toContain('nope');
  });

  it('answers a body that is not JSON with 400 and a JSON errors array, not an HTML page', async () => {
    const response = await gw.http.post('/graphql').set('content-type', 'application/json').send('{bad');
    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.text).not.toMatch(/<html|<!doctype|<pre>/i);
    expect(Array.isArray(response.body.errors)).toBe(true);
    expect(response.body.errors[0].message).toMatch(/not valid JSON/);
    expectNoStackTraces(response.body);
  });

  it('answers a body over the size limit with a JSON errors array, not an HTML page', async () => {
    // /graphql takes ingest batches, so its limit is the larger of REQUEST_BODY_LIMIT and INGEST_BODY_LIMIT (10 MB).
    const response = await gw.http
      .post('/graphql')
      .set('content-type', 'application/json')
      .send(JSON.stringify({ query: '{ version }', variables: { padding: 'x'.repeat(11 * 1024 * 1024) } }));
    expect(response.status).toBe(413);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.text).not.toMatch(/<html|<!doctype|<pre>/i);
    expect(response.body.errors[0].message).toMatch(/too large: over the 10485760-byte limit \(INGEST_BODY_LIMIT=10mb\); send a smaller body or raise INGEST_BODY_LIMIT$/);
  });

  it('answers a body in a charset it cannot read with 415 and a JSON errors array that says so', async () => {
    const response = await gw.http.post('/graphql').set('content-type', 'application/json; charset=latin-9').send('{"query":"{ version }"}');
    expect(response.status).toBe(415);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.body.data).toBeUndefined();
    expect(response.body.errors).toEqual([{ message: 'unsupported charset "LATIN-9"', extensions: { code: 'BAD_REQUEST' } }]);
  });

  it('answers a persisted query of an unsupported version with 400 BAD_REQUEST, not an internal error', async () => {
    const response = await gw.http.post('/graphql').send({ query: '{ version }', extensions: { persistedQuery: { version: 2, sha256Hash: 'abc' } } });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([{ message: 'Unsupported persisted query version', extensions: { code: 'BAD_REQUEST' } }]);
  });

  it('answers a compressed body that does not decompress with 400 and a JSON errors array, not the REST envelope', async () => {
    const response = await gw.http.post('/graphql').set('content-type', 'application/json').set('content-encoding', 'gzip').send('{"query":"{ version }"}');
    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.body).not.toHaveProperty('responseCode');
    expect(response.body.errors).toHaveLength(1);
    expect(response.body.errors[0]).toEqual({ message: expect.stringMatching(/^the request body could not be read: /), extensions: { code: 'BAD_REQUEST' } });
    expectNoStackTraces(response.body);
  });

  it('refuses GET /graphql?query=... without a preflight header (CSRF prevention is on)', async () => {
    const response = await gw.http.get('/graphql').query({ query: '{ version }' });
    expect(response.status).toBe(400);
    expect(response.body.data).toBeUndefined();
    expect(response.body.errors[0].message).toMatch(/Cross-Site Request Forgery/);
  });

  it('answers GET /graphql?query=... that carries the apollo-require-preflight header', async () => {
    const response = await gw.http.get('/graphql').query({ query: '{ version }' }).set('apollo-require-preflight', 'true');
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({ version: PACKAGE_VERSION });
  });

  it('refuses a POST sent as a simple form content type (CSRF prevention is on)', async () => {
    const response = await gw.http.post('/graphql').set('content-type', 'text/plain').send('{"query":"{ version }"}');
    expect(response.status).toBe(400);
    expect(response.body.data).toBeUndefined();
    expect(response.text).toMatch(/Cross-Site Request Forgery/);
  });

  it('serves the GraphiQL page to a browser asking GET /graphql for HTML', async () => {
    const response = await gw.http.get('/graphql').set('accept', 'text/html,application/xhtml+xml,*/*;q=0.8');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.text).toContain('/graphiql/graphiql.js');
    expect(response.text).toContain('/graphiql/graphiql.css');
    expect(response.text).toContain('/graphql');
  });

  it('serves a GraphiQL page that references no external http(s) URL, so it works offline', async () => {
    const response = await gw.http.get('/graphql').set('accept', 'text/html');
    expect(response.status).toBe(200);
    expect(response.text).not.toMatch(/https?:\/\//i);
    expect(response.text).not.toMatch(/(src|href)\s*=\s*["']\/\//i);
  });

  it('serves every asset the GraphiQL page references', async () => {
    const page = await gw.http.get('/graphql').set('accept', 'text/html');
    const references = [...page.text.matchAll(/(?:src|href)\s*=\s*"([^"]+)"/g)].map((match) => match[1]!).filter((ref) => !ref.startsWith('data:'));
    expect(references).toEqual(expect.arrayContaining(['/graphiql/graphiql.js', '/graphiql/graphiql.css']));
    for (const reference of references) {
      const asset = await gw.http.get(reference);
      expect({ reference, status: asset.status }).toEqual({ reference, status: 200 });
    }
  });

  it('serves graphiql.js as JavaScript and graphiql.css as CSS', async () => {
    const script = await gw.http.get('/graphiql/graphiql.js');
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toMatch(/^(text|application)\/javascript/);
    expect(Number(script.headers['content-length'])).toBeGreaterThan(0);

    const style = await gw.http.get('/graphiql/graphiql.css');
    expect(style.status).toBe(200);
    expect(style.headers['content-type']).toMatch(/^text\/css/);
    expect(Number(style.headers['content-length'])).toBeGreaterThan(0);
  });

  it('serves the editor workers and fonts that GraphiQL loads, and fetches nothing from a CDN', async () => {
    const script = (await gw.http.get('/graphiql/graphiql.js').buffer(true)).text;
    const style = (await gw.http.get('/graphiql/graphiql.css').buffer(true)).text;
    expect(script + style).not.toMatch(/unpkg\.com|jsdelivr|cdnjs|esm\.sh|googleapis|skypack/i);
    const workers = [...new Set([...script.matchAll(/\.\/(workers\/[\w.-]+\.js)/g)].map((match) => match[1]!))];
    const fonts = [...new Set([...style.matchAll(/url\(["']?\.\/(assets\/[\w.-]+)["']?\)/g)].map((match) => match[1]!))];
    expect(workers.length).toBeGreaterThan(0);
    expect(fonts.length).toBeGreaterThan(0);
    for (const file of [...workers, ...fonts]) {
      const asset = await gw.http.get(`/graphiql/${file}`);
      expect({ file, status: asset.status }).toEqual({ file, status: 200 });
    }
  });

  it('answers a missing GraphiQL asset with 404', async () => {
    const response = await gw.http.get('/graphiql/not-there.js');
    expect(response.status).toBe(404);
  });

  it('does not answer a JSON client asking GET /graphql with the GraphiQL page', async () => {
    const response = await gw.http.get('/graphql').set('accept', 'application/json');
    expect(response.headers['content-type'] ?? '').not.toMatch(/^text\/html/);
    expect(response.text).not.toContain('/graphiql/graphiql.js');
  });

  it('allows introspection by default', async () => {
    const response = await graphql(gw, INTROSPECTION);
    expect(response.status).toBe(200);
    expect(response.errors).toBeUndefined();
    expect(response.data).toEqual({ __schema: { queryType: { name: 'Query' } } });
  });

  it('includes no stack trace in parse, validation, variable or resolver errors', async () => {
    const responses = await Promise.all([
      gw.http.post('/graphql').send({ query: '{ version ' }),
      gw.http.post('/graphql').send({ query: '{ nope }' }),
      gw.http.post('/graphql').send({ query: 'query ($id: ID!) { template(id: $id) { id: templateId } }', variables: { id: 42.5 } }),
      gw.http.post('/graphql').send({ query: 'query ($id: ID!) { template(id: $id) { id: templateId } }' }),
      gw.http.post('/graphql').send({ query: '{ template(id: "no_such_template") { id: templateId } }' }),
    ]);
    for (const response of responses) expectNoStackTraces(response.body);
    const notFound = responses[4].body;
    expect(notFound.errors[0].extensions).toEqual({ code: 'QUERY_TEMPLATE_NOT_EXISTS', responseCode: 'NOT_FOUND' });
  });
});

describe('GraphQL with GRAPHIQL_ENABLED=false', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ GRAPHIQL_ENABLED: 'false' });
  });
  afterAll(async () => {
    await gw?.stop();
  });

  it('does not serve the GraphiQL page', async () => {
    const response = await gw.http.get('/graphql').set('accept', 'text/html');
    expect(response.headers['content-type'] ?? '').not.toMatch(/^text\/html/);
    expect(response.text).not.toContain('/graphiql/graphiql.js');
    expect(response.status).toBeGreaterThanOrEqual(400);
  });

  it('does not serve the GraphiQL assets', async () => {
    expect((await gw.http.get('/graphiql/graphiql.js')).status).toBe(404);
    expect((await gw.http.get('/graphiql/graphiql.css')).status).toBe(404);
  });

  it('still answers GraphQL queries and introspection', async () => {
    expect((await graphql(gw, '{ version }')).data).toEqual({ version: PACKAGE_VERSION });
    expect((await graphql(gw, INTROSPECTION)).data).toEqual({ __schema: { queryType: { name: 'Query' } } });
  });
});

describe('GraphQL with GRAPHQL_INTROSPECTION=false', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ GRAPHQL_INTROSPECTION: 'false' });
  });
  afterAll(async () => {
    await gw?.stop();
  });

  it('refuses a __schema query', async () => {
    const response = await graphql(gw, INTROSPECTION);
    expect(response.status).toBe(400);
    expect(response.data).toBeUndefined();
    expect(errorCode(response)).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(response.errors?.[0]?.message).toMatch(/introspection/i);
  });

  it('refuses a __type query', async () => {
    const response = await graphql(gw, '{ __type(name: "Query") { name } }');
    expect(response.status).toBe(400);
    expect(errorCode(response)).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  it('still answers ordinary queries', async () => {
    const response = await graphql(gw, '{ version }');
    expect(response.status).toBe(200);
    expect(response.data).toEqual({ version: PACKAGE_VERSION });
  });
});
