// A document costs the gateway work in proportion to its size, whoever sends it: the depth and
// cost checks compute each fragment once (a chain of fragments that each spread the next twice is
// not walked 2^n times), callers without credentials meet their rate limit before any parsing,
// `first: null` is priced as the page it is served as, and the standard introspection query that
// GraphiQL's Docs pane sends passes the depth limit whenever introspection is allowed.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { getIntrospectionQuery, Kind, parse, visit, type OperationDefinitionNode } from 'graphql';
import { buildSchema } from '../../src/graphql/schema.js';
import { priceOperation, operationDepth, STANDARD_INTROSPECTION_DEPTH, type WorkCounter } from '../../src/graphql/limits.js';
import { JWT_ENV } from '../support/auth.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

const schema = buildSchema('test');

/** `n` fragments, each spreading the next twice: 2^n paths, n + 2 definitions. */
function doublingChain(n: number): string {
  const fragments = Array.from({ length: n }, (_, i) => `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`);
  return ['query Chain { ...F0 }', ...fragments, `fragment F${n} on Query { version }`].join('\n');
}

/** `n` fragments on a connection's nodes, each spreading the next from two aliased places, under a page. */
function nestedChain(n: number): string {
  const fragments = Array.from({ length: n }, (_, i) => `fragment T${i} on QueryTemplate { id ...T${i + 1} name ...T${i + 1} }`);
  return ['query Nested { templates(first: 5) { nodes { ...T0 } } }', ...fragments, `fragment T${n} on QueryTemplate { query }`].join('\n');
}

function selectionsIn(source: string): number {
  let count = 0;
  visit(parse(source), { Field: () => void (count += 1), FragmentSpread: () => void (count += 1), InlineFragment: () => void (count += 1) });
  return count;
}

function checkWork(source: string): { depth: number; cost: number; visited: number } {
  const document = parse(source);
  const operation = document.definitions.find((definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION)!;
  const work: WorkCounter = { visited: 0 };
  const depth = operationDepth(document, operation, work);
  const cost = priceOperation(schema, document, operation, {}, { unboundedPageSize: 1000 }, work).cost;
  return { depth, cost, visited: work.visited };
}

describe('checking a document is linear in its size', () => {
  it.each([
    ['fragments that each spread the next twice', doublingChain],
    ['fragments spread twice inside a paged list', nestedChain],
  ])('visits each selection of %s at most twice (depth and cost together), for chains of 1 to 60', (_name, family) => {
    for (let n = 1; n <= 60; n += 1) {
      const source = family(n);
      const { visited } = checkWork(source);
      expect({ n, visited: visited <= 2 * selectionsIn(source) }).toEqual({ n, visited: true });
    }
  });

  it('still prices the 2^n paths such a chain would execute, so the cost limit refuses it', () => {
    expect(checkWork(doublingChain(24)).cost).toBe(2 ** 24);
  });
});

describe('`first: null`', () => {
  it('costs the largest page the service serves, not one item', () => {
    const explicitNull = checkWork('{ templates(first: null) { nodes { id name } } }').cost;
    expect(explicitNull).toBe(checkWork('{ templates(first: 1000) { nodes { id name } } }').cost);
    const document = parse('query Q($n: Int) { templates(first: $n) { nodes { id name } } }');
    const operation = document.definitions[0] as OperationDefinitionNode;
    expect(priceOperation(schema, document, operation, { n: null }, { unboundedPageSize: 1000 }).cost).toBe(explicitNull);
  });
});

describe('over HTTP', () => {
  let gw: TestGateway;
  let jwt: TestGateway;
  beforeAll(async () => {
    [gw, jwt] = await Promise.all([startTestGateway(), startTestGateway({ ...JWT_ENV, RATE_LIMIT_RPS: '1', RATE_LIMIT_BURST: '2' })]);
  });
  afterAll(async () => {
    await Promise.all([gw?.stop(), jwt?.stop()]);
  });

  const post = (target: TestGateway, body: object) => target.http.post('/graphql').set('content-type', 'application/json').send(body);

  it('refuses the 987-byte chain of 24 doubling fragments as too costly, and keeps answering health checks', async () => {
    const source = doublingChain(24);
    expect(source.length).toBeLessThan(1000);
    const [refused, health] = await Promise.all([post(gw, { query: source }), gw.http.get('/healthz')]);
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].message).toMatch(/costs 16777216; at most 50000/);
    expect(health.status).toBe(200);
  });

  it('refuses a subscription sent as a plain HTTP request with 400 naming the transports that serve it, before it runs', async () => {
    const response = await post(gw, { query: 'subscription { datasetChanged { datasetId } }' });
    expect(response.status).toBe(400);
    expect(response.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(response.body.errors[0].message).toMatch(/WebSocket \(graphql-transport-ws\) on \/graphql or Server-Sent Events on \/graphql\/stream/);
  });

  it('refuses thirty aliased lists with `first: null` as the 30,000 rows they would fetch', async () => {
    // Each list: itself, `nodes`, and 1000 × (id, name).
    const lists = Array.from({ length: 30 }, (_, i) => `l${i}: templates(first: null) { nodes { id name } }`).join(' ');
    const response = await post(gw, { query: `{ ${lists} }` });
    expect(response.status).toBe(400);
    expect(response.body.errors[0].message).toMatch(/costs 60060; at most 50000/);
  });

  it("answers GraphiQL's full introspection query although it nests deeper than GRAPHQL_MAX_DEPTH", async () => {
    expect(STANDARD_INTROSPECTION_DEPTH).toBeGreaterThan(12);
    const query = getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true, inputValueDeprecation: true, oneOf: true });
    const response = await post(gw, { query });
    expect(response.status).toBe(200);
    expect(response.body.errors).toBeUndefined();
    const names = (response.body.data.__schema.types as { name: string }[]).map((type) => type.name);
    expect(names).toEqual(expect.arrayContaining(['Query', 'Dataset', 'QueryTemplate']));
  });

  it('still refuses a data query nested as deep as the introspection query', async () => {
    const deep = '{ datasets(first: 1) { nodes { live { draft { live { draft { live { draft { live { draft { live { draft { live { draft { id } } } } } } } } } } } } } } }';
    const response = await post(gw, { query: deep });
    expect(response.status).toBe(400);
    expect(response.body.errors[0].message).toMatch(/nests \d+ levels deep; at most 12/);
  });

  it('rate-limits a caller without credentials before parsing its documents (jwt mode)', async () => {
    const unparsable = { query: '{ version ' };
    const first = await post(jwt, unparsable);
    expect(first.status).toBe(400); // reached the parser: a syntax error
    await post(jwt, unparsable);
    const limited = await post(jwt, unparsable);
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toMatch(/^\d+$/);
    expect(limited.body.errors[0].extensions.code).toBe('RATE_LIMITED');
  });
});
