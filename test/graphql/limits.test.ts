// What one GraphQL request may ask for: depth, aliases, tokens, cost (list pages weighted by
// `first`), batch length, and the lengths of strings, keys and arrays in variables and literals are
// bounded and configurable; CSRF prevention stays on.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { definition, seedDataset } from '../support/datasets.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

let gw: TestGateway;
let batching: TestGateway;
/** Strings and keys of at most 1000 characters, arrays of at most 50 items; batches of 2. */
let bounded: TestGateway;

const MAX_STRING = 1000;
const MAX_ARRAY = 50;
const LIVE = 'graphql-limits-live';

beforeAll(async () => {
  [gw, batching, bounded] = await Promise.all([
    startTestGateway({ GRAPHQL_MAX_DEPTH: '4', GRAPHQL_MAX_ALIASES: '3', GRAPHQL_MAX_TOKENS: '200', GRAPHQL_MAX_COST: '1000' }),
    startTestGateway({ GRAPHQL_MAX_BATCH: '2' }),
    startTestGateway({ JSON_MAX_STRING_LENGTH: String(MAX_STRING), JSON_MAX_ARRAY_LENGTH: String(MAX_ARRAY), INGEST_MAX_BATCH: String(MAX_ARRAY), GRAPHQL_MAX_BATCH: '2' }),
  ]);
  await seedDataset(bounded, LIVE, 'Live');
}, 60_000);

afterAll(async () => {
  await Promise.all([gw?.stop(), batching?.stop(), bounded?.stop()]);
});

function post(target: TestGateway, body: unknown) {
  return target.http
    .post('/graphql')
    .set('content-type', 'application/json')
    .send(body as object);
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
    expect(tooDeep.body.errors[0].message).toMatch(/nests 5 levels deep; at most 4 are allowed \(GRAPHQL_MAX_DEPTH\)/);
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
    expect(response.body.errors[0].message).toMatch(/4 aliases; at most 3 are allowed \(GRAPHQL_MAX_ALIASES\)/);
  });
});

describe('tokens', () => {
  it('stops parsing a document with more tokens than allowed', async () => {
    const response = await post(gw, { query: `{ ${Array.from({ length: 250 }, () => '__typename').join(' ')} }` });
    expect(response.status).toBe(400);
    expect(response.body.errors[0].message).toMatch(/more (than|that) 200 tokens\. Parsing aborted\. The limit is GRAPHQL_MAX_TOKENS\.$/);
    expect(response.body.errors[0].extensions.code).toBe('GRAPHQL_PARSE_FAILED');
  });
});

describe('cost', () => {
  it('tells each answer what the document cost, in extensions.cost', async () => {
    const answer = await post(gw, { query: '{ templates(first: 100) { totalCount nodes { id name } } }' });
    // 1 (templates) + 25 (totalCount: a count, on a table of under 100 rows) + 1 (nodes) + 100 × 2 (id, name of each item)
    expect({ status: answer.status, cost: answer.body.extensions?.cost }).toEqual({ status: 200, cost: 227 });
  });

  it('weighs a list by the page asked for, in the query or in a variable', async () => {
    expect((await post(gw, { query: '{ templates(first: 100) { nodes { id name } } }' })).status).toBe(200);
    const literal = await post(gw, { query: '{ templates(first: 1000) { nodes { id name } } }' });
    expect(literal.status).toBe(400);
    // 1 (templates) + 1 (nodes) + 1000 × 2 (id, name of each item)
    expect(literal.body.errors[0].message).toMatch(/costs 2002; at most 1000/);
    const variable = await post(gw, { query: 'query Q($n: Int) { templates(first: $n) { nodes { id name } } }', variables: { n: 1000 } });
    expect(variable.status).toBe(400);
  });

  it("counts a connection's own fields (totalCount, pageInfo) once, and only its lists per item", async () => {
    const page = (first: number) => `{ templates(first: ${first}) { totalCount pageInfo { hasNextPage endCursor } nodes { id } edges { cursor } } }`;
    // 1 + 25 (totalCount) + (1 + 2) + (1 + n) + (1 + n) = 31 + 2n: 484 items cost 999, 485 cost 1001.
    expect((await post(gw, { query: page(484) })).status).toBe(200);
    const over = await post(gw, { query: page(485) });
    expect({ status: over.status, message: over.body.errors?.[0]?.message }).toEqual({ status: 400, message: expect.stringMatching(/costs 1001; at most 1000/) });
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
    expect(three.body.errors[0].message).toMatch(/at most 2 operations \(GRAPHQL_MAX_BATCH\); this one holds 3/);
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

describe('string and array lengths (JSON_MAX_STRING_LENGTH, JSON_MAX_ARRAY_LENGTH)', () => {
  const IMPORT = 'mutation Import($definition: JSON!) { importDataset(definition: $definition) { id } }';
  const INGEST = `mutation Ingest($data: JSON!, $msgid: String) { ingest(datasetId: "${LIVE}", data: $data, msgid: $msgid) { accepted } }`;

  const datasetRows = async (id: string) => (await bounded.sql<{ n: number }>('SELECT count(*)::int AS n FROM datasets WHERE dataset_id = $1', [id])).rows[0]!.n;
  const eventRows = async (msgid: string) => (await bounded.sql<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE msgid = $1', [msgid])).rows[0]!.n;

  /** 400 with one INVALID_INPUT error (responseCode BAD_REQUEST) whose message is `message`, and no data. */
  function expectRefused(response: { status: number; body: any }, message: string | RegExp): void {
    expect(response.status).toBe(400);
    expect(response.body.data).toBeUndefined();
    expect(response.body.errors).toHaveLength(1);
    expect(response.body.errors[0].extensions).toEqual({ code: 'INVALID_INPUT', responseCode: 'BAD_REQUEST' });
    if (typeof message === 'string') expect(response.body.errors[0].message).toBe(message);
    else expect(response.body.errors[0].message).toMatch(message);
  }

  it('refuses an over-long string deep inside a variable with 400 INVALID_INPUT naming its path, and stores nothing', async () => {
    const id = 'graphql-limits-long-sample';
    const response = await post(bounded, { query: IMPORT, variables: { definition: definition(id, { sample_data: { nested: { rows: [{ ok: 1 }, { note: 'x'.repeat(MAX_STRING + 1) }] } } }) } });
    expectRefused(response, `the string at /variables/definition/sample_data/nested/rows/1/note is ${MAX_STRING + 1} characters long; the limit is ${MAX_STRING} (JSON_MAX_STRING_LENGTH)`);
    expect(await datasetRows(id)).toBe(0);
  });

  it('refuses an over-long array and an over-long object key in ingested events, and stores none of them', async () => {
    const tags = await post(bounded, { query: INGEST, variables: { msgid: 'gql-limits-array', data: [{ id: 'a1', tags: Array.from({ length: MAX_ARRAY + 1 }, (_, i) => i) }] } });
    expectRefused(tags, `the array at /variables/data/0/tags has ${MAX_ARRAY + 1} items; the limit is ${MAX_ARRAY} (JSON_MAX_ARRAY_LENGTH)`);
    expect(await eventRows('gql-limits-array')).toBe(0);
    const key = await post(bounded, { query: INGEST, variables: { msgid: 'gql-limits-key', data: [{ id: 'k1', ['k'.repeat(MAX_STRING + 1)]: 1 }] } });
    expectRefused(key, /^the object key at \/variables\/data\/0\/k{64}… is 1001 characters long; the limit is 1000 \(JSON_MAX_STRING_LENGTH\)$/);
    expect(await eventRows('gql-limits-key')).toBe(0);
  });

  it('takes a string, a key and an array at the limits exactly', async () => {
    const events = Array.from({ length: MAX_ARRAY }, (_, i) => ({ id: `at-${i}`, text: 's'.repeat(MAX_STRING), ['k'.repeat(MAX_STRING)]: [i] }));
    const response = await post(bounded, { query: INGEST, variables: { msgid: 'gql-limits-at', data: events } });
    expect({ status: response.status, errors: response.body.errors, data: response.body.data }).toEqual({ status: 200, errors: undefined, data: { ingest: { accepted: MAX_ARRAY } } });
    expect(await eventRows('gql-limits-at')).toBe(MAX_ARRAY);
  });

  it('refuses the same lengths written into the document itself, by line and column', async () => {
    const id = 'graphql-limits-literal';
    const long = `"${'x'.repeat(MAX_STRING + 1)}"`;
    const withString = `mutation { importDataset(definition: { id: "${id}", note: ${long} }) { id } }`;
    // Twice: the second time the parsed document (and what was found in it) comes from a cache.
    for (let attempt = 0; attempt < 2; attempt++) {
      expectRefused(
        await post(bounded, { query: withString }),
        `the string at line 1, column ${withString.indexOf(long) + 1} of the document is ${MAX_STRING + 1} characters long; the limit is ${MAX_STRING} (JSON_MAX_STRING_LENGTH)`,
      );
    }
    const withList = `mutation { importDataset(definition: { id: "${id}", tags: [${Array.from({ length: MAX_ARRAY + 1 }, () => '"t"').join(',')}] }) { id } }`;
    expectRefused(
      await post(bounded, { query: withList }),
      `the list at line 1, column ${withList.indexOf('[') + 1} of the document has ${MAX_ARRAY + 1} items; the limit is ${MAX_ARRAY} (JSON_MAX_ARRAY_LENGTH)`,
    );
    expect(await datasetRows(id)).toBe(0);
  });

  it('refuses text that is not valid Unicode (an unpaired surrogate) in variables and in the document, before any database call', async () => {
    const NOT_UNICODE = 'is not valid Unicode text: it holds an unpaired surrogate (such as \\ud800 without its pair)';
    // Found by the fuzz suite: Prisma failed on such an id and the caller got a 500.
    const byVariable = await post(bounded, { query: 'query($id: ID!) { dataset(id: $id) { id } }', variables: { id: '\u202e\u0000💥\ud800' } });
    expectRefused(byVariable, `the string at /variables/id ${NOT_UNICODE}`);
    const inEvent = await post(bounded, { query: INGEST, variables: { msgid: 'gql-surrogate', data: [{ id: 'u1', text: 'half \udc00' }] } });
    expectRefused(inEvent, `the string at /variables/data/0/text ${NOT_UNICODE}`);
    expect(await eventRows('gql-surrogate')).toBe(0);
    // In the document itself, GraphQL's own parser refuses it, escaped or not.
    for (const literal of ['query { connector(id: "abc\\ud800") { id } }', 'query { connector(id: "abc\ud800") { id } }']) {
      const response = await post(bounded, { query: literal });
      expect({ status: response.status, code: response.body.errors?.[0]?.extensions?.code }).toEqual({ status: 400, code: 'GRAPHQL_PARSE_FAILED' });
      expect(response.body.errors[0].message).toMatch(/Invalid Unicode escape sequence|Invalid character within String/);
    }
  });

  it('checks each operation of a batch on its own', async () => {
    const response = await post(bounded, [{ query: '{ version }' }, { query: INGEST, variables: { msgid: 'gql-limits-batch', data: [{ id: 'b1', text: 'x'.repeat(MAX_STRING + 1) }] } }]);
    expect(response.body).toHaveLength(2);
    expect(response.body[0].data.version).toEqual(expect.any(String));
    expect(response.body[1].errors[0]).toMatchObject({ message: expect.stringMatching(/^the string at \/variables\/data\/0\/text is 1001 characters long/), extensions: { code: 'INVALID_INPUT' } });
    expect(await eventRows('gql-limits-batch')).toBe(0);
  });
});
