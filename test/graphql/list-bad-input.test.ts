// Bad input to every list of the list contract and to search (issue 36, "How it is checked"): an
// unknown `where` field or operator, a malformed, forged or foreign cursor, `first` with `last`,
// `first: 100000`, a search of 10,000 characters; each is a 400-class GraphQL error with its code,
// never a 500, and is refused before the gateway runs any SQL statement (so it cannot be a slow
// query). Text of 10,000 characters full of SQL metacharacters compared by `eq` is a bound value: it
// matches nothing and changes nothing; a `contains` or `startsWith` over 200 characters is refused.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { graphql, type GraphQLResponse } from '../support/api.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { LIST_HARNESSES, type ListHarness } from '../support/list-harnesses.js';

let gw: TestGateway;
/** A real cursor of the template list and of the connector list, foreign to every other list. */
let templateCursor: string;
let connectorCursor: string;

const SQL_METACHARACTERS = `'); DROP TABLE query_templates; -- %_\\ " $1 ;`;
const LONG_METACHARACTERS = SQL_METACHARACTERS.repeat(Math.ceil(10_000 / SQL_METACHARACTERS.length)).slice(0, 10_000);

beforeAll(async () => {
  gw = await startTestGateway();
  for (const harness of LIST_HARNESSES.filter((candidate) => candidate.field === 'templates' || candidate.field === 'connectors')) await gw.sql(harness.insert, [[1, 2]]);
  const cursors = await graphql<{ templates: { pageInfo: { endCursor: string } }; connectors: { pageInfo: { endCursor: string } } }>(
    gw,
    '{ templates(first: 1) { pageInfo { endCursor } } connectors(first: 1) { pageInfo { endCursor } } }',
  );
  templateCursor = cursors.data!.templates.pageInfo.endCursor;
  connectorCursor = cursors.data!.connectors.pageInfo.endCursor;
}, 60_000);
afterAll(async () => {
  await gw?.stop();
});

function document(harness: ListHarness): string {
  const type = harness.declaration.type;
  return `query List($where: ${type}Where, $first: Int, $after: String, $last: Int, $before: String) {
    ${harness.field}(where: $where, first: $first, after: $after, last: $last, before: $before) { totalCount edges { cursor node { ${harness.node} } } } }`;
}

/**
 * The answer's status, first error code and kind, and the fewest SQL statements the gateway ran while
 * it was asked up to three times (a background job of the gateway may send one meanwhile).
 */
async function ask(
  query: string,
  variables: Record<string, unknown>,
  allowed = 0,
): Promise<{ status: number; code: unknown; kind: unknown; message: string; statements: number; response: GraphQLResponse }> {
  let statements = Infinity;
  let response: GraphQLResponse | undefined;
  for (let attempt = 0; attempt < 3 && (attempt === 0 || statements > allowed); attempt += 1) {
    const before = gw.gateway.database.statementCount();
    response = await graphql(gw, query, variables);
    statements = Math.min(statements, gw.gateway.database.statementCount() - before);
  }
  const error = response!.errors?.[0];
  return { status: response!.status, code: error?.extensions?.code, kind: error?.extensions?.responseCode, message: String(error?.message), statements, response: response! };
}

const forged = (type: string) => Buffer.from(JSON.stringify(['k1', type, 'x', ["1'); DROP TABLE query_templates; --"]])).toString('base64url');

// The root lists: a nested connection's bad input is refused the same way (list-contract.test.ts runs
// the bad-input scenarios on each), but asking it here would need its parent item seeded first.
const ROOT_LISTS = LIST_HARNESSES.filter((harness) => harness.parent === undefined);

describe.each(ROOT_LISTS.map((harness) => [harness.field, harness] as const))('%s', (_field, harness) => {
  const { declaration } = harness;
  const listCode = { code: declaration.invalidInputCode, kind: 'BAD_REQUEST' };
  const [firstField, firstDeclared] = Object.entries(declaration.fields)[0]!;
  // datasourceSizePage reads the engine's datasource sizes (one catalog statement) beside its page, so
  // that statement may have started when the page's arguments are refused; no list statement runs.
  const statementsAllowed = harness.field === 'datasourceSizePage' ? 1 : 0;
  const withinStatements = (statements: number) => ({ statementsWithin: statements <= statementsAllowed ? statementsAllowed : statements });

  it.each([
    ['an unknown where field', { where: { noSuchField: { eq: 'x' } } }, 400, { code: 'BAD_USER_INPUT' }],
    ['an operator its field does not take', { where: { [firstField]: { [firstDeclared.kind === 'time' ? 'contains' : 'gt']: 'x' } } }, 400, { code: 'BAD_USER_INPUT' }],
    ['a malformed cursor', { after: 'not a cursor' }, 200, listCode],
    ['a forged cursor holding SQL', { after: forged(declaration.type) }, 200, listCode],
    ['a cursor of 10,000 characters', { last: 1, before: LONG_METACHARACTERS }, 200, listCode],
    ['first with last', { first: 2, last: 2 }, 200, listCode],
    ['first: 100000', { first: 100_000 }, 400, { code: 'GRAPHQL_VALIDATION_FAILED' }],
    ['last: 100000', { last: 100_000 }, 400, { code: 'GRAPHQL_VALIDATION_FAILED' }],
  ] as const)('refuses %s with its code before any SQL statement runs', async (_name, variables, status, code) => {
    const answer = await ask(document(harness), variables, statementsAllowed);
    expect({ status: answer.status, code: answer.code, ...('kind' in code ? { kind: answer.kind } : {}), ...withinStatements(answer.statements) }).toEqual({
      status,
      ...code,
      statementsWithin: statementsAllowed,
    });
  });

  it('refuses a cursor of another list, naming the list that made it, before any SQL statement runs', async () => {
    const foreign = declaration.type === 'QueryTemplate' ? connectorCursor : templateCursor;
    const answer = await ask(document(harness), { after: foreign }, statementsAllowed);
    expect({ status: answer.status, code: answer.code, kind: answer.kind, ...withinStatements(answer.statements) }).toEqual({ status: 200, ...listCode, statementsWithin: statementsAllowed });
    expect(answer.message).toMatch(/is not a cursor of this list \(it was made by a list of (QueryTemplate|Connector)\)/);
  });

  const fields = Object.entries(declaration.fields);
  // A text field, else a key field (on a list of uuid keys only, a value no uuid column could hold).
  const [keyName] = fields.find(([, candidate]) => candidate.kind === 'key' && !candidate.uuid && !candidate.bigint) ?? fields.find(([, candidate]) => candidate.kind === 'key')!;
  const text = fields.find(([, candidate]) => candidate.kind === 'text');

  it('takes 10,000 characters of SQL metacharacters compared by eq as a value: no item, no error, nothing dropped', async () => {
    const answer = await ask(document(harness), { where: { [text?.[0] ?? keyName]: { eq: LONG_METACHARACTERS } }, first: 5 }, Infinity);
    expect({ errors: answer.response.errors, list: answer.response.data?.[harness.field] }).toEqual({ errors: undefined, list: { totalCount: 0, edges: [] } });
    expect((await gw.sql<{ n: number }>('SELECT count(*)::int AS n FROM query_templates')).rows[0]!.n).toBe(2);
  });

  if (text) {
    it.each(['contains', 'startsWith'])('refuses a %s of more than 200 characters (each trigram one more index lookup) before any SQL statement runs', async (operator) => {
      for (const [pattern, length] of [
        [LONG_METACHARACTERS, 10_000],
        ['x'.repeat(201), 201],
      ] as const) {
        const answer = await ask(document(harness), { where: { [text[0]]: { [operator]: pattern } } }, statementsAllowed);
        expect({ status: answer.status, code: answer.code, kind: answer.kind, ...withinStatements(answer.statements), message: answer.message }).toEqual({
          status: 200,
          ...listCode,
          statementsWithin: statementsAllowed,
          // The datasource pages add their own condition (Live only) beside the client's where, and name its path so.
          message: expect.stringMatching(new RegExp(`^where\\.(_and\\[1\\]\\.)?${text[0]}\\.${operator}: give at most 200 characters \\(got ${length}\\)$`)),
        });
      }
      const atLimit = await ask(document(harness), { where: { [text[0]]: { [operator]: 'x'.repeat(200) } } }, Infinity);
      expect({ errors: atLimit.response.errors, totalCount: (atLimit.response.data?.[harness.field] as { totalCount: number } | undefined)?.totalCount }).toEqual({ errors: undefined, totalCount: 0 });
    });
  }
});

describe('search', () => {
  const SEARCH = 'query($q: String!, $after: String) { search(query: $q, after: $after) { totalCount facets { type count } edges { node { __typename } } } }';

  it.each([
    ['a query of 10,000 characters', { q: 'a'.repeat(10_000) }, 'SEARCH_INVALID_INPUT'],
    ['a query of 10,000 SQL metacharacters', { q: LONG_METACHARACTERS }, 'SEARCH_INVALID_INPUT'],
    ['a query of SQL metacharacters and tsquery operators alone', { q: `'); -- ;&|!():*` }, 'SEARCH_INVALID_INPUT'],
    ['a forged cursor holding SQL', { q: 'contract', after: forged('search') }, 'SEARCH_CURSOR_INVALID'],
  ])('refuses %s with its code before any SQL statement runs', async (_name, variables, code) => {
    const answer = await ask(SEARCH, variables);
    expect({ status: answer.status, code: answer.code, kind: answer.kind, statements: answer.statements }).toEqual({ status: 200, code, kind: 'BAD_REQUEST', statements: 0 });
  });

  it('refuses first: 100000 by its cost before any SQL statement runs', async () => {
    const answer = await ask('query($q: String!) { search(query: $q, first: 100000) { totalCount edges { node { __typename } } } }', { q: 'contract' });
    expect({ status: answer.status, code: answer.code, statements: answer.statements }).toEqual({ status: 400, code: 'GRAPHQL_VALIDATION_FAILED', statements: 0 });
  });
});
