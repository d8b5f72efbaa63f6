// The HTTP doors run operations as compiled code (src/graphql/compiled-execution.ts). A caller must
// not be able to tell: every answer, error included (its message, path, locations, extensions and
// the resolver's own error behind it), is graphql-js's for the same operation. Here on a schema
// with what the gateway's uses: enums with values of their own, input objects, lists, non-null
// fields whose error empties their parent, an interface, fragments, aliases, @skip/@include, a
// resolver that throws the gateway's error, one that rejects, variables a type refuses, and a
// variable of an input type that contains itself (a list's where), which graphql-js runs.
import { describe, expect, it } from '@jest/globals';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { execute, GraphQLError, parse, type ExecutionResult } from 'graphql';
import { GatewayError } from '../../src/errors.js';
import { classifyGraphQLError } from '../../src/graphql/errors.js';
import { compiledExecutor } from '../../src/graphql/compiled-execution.js';

const schema = makeExecutableSchema({
  typeDefs: /* GraphQL */ `
    enum Status {
      LIVE
      DRAFT
    }
    input Filter {
      status: [Status!]
      name: String
      first: Int = 2
    }
    input Where {
      name: String
      _or: [Where!]
    }
    interface Node {
      id: ID!
    }
    type Dataset implements Node {
      id: ID!
      name: String!
      status: Status!
      tags: [String!]!
      broken: String!
      refused: String
      late: Int
    }
    type Template implements Node {
      id: ID!
      query: String
    }
    type Query {
      datasets(filter: Filter, where: Where): [Dataset!]!
      node(id: ID!): Node
      echo(count: Int!, statuses: [Status!]!): String!
    }
  `,
  resolvers: {
    Status: { LIVE: 'Live', DRAFT: 'Draft' },
    Node: { __resolveType: (record: { kind: string }) => record.kind },
    Query: {
      datasets: (_: unknown, { filter, where }: { filter?: { status?: string[]; name?: string; first: number }; where?: Where }) =>
        [
          { kind: 'Dataset', id: 'a', name: 'Alpha', status: 'Live', tags: ['x', 'y'] },
          { kind: 'Dataset', id: 'b', name: 'Beta', status: 'Draft', tags: [] },
          { kind: 'Dataset', id: 'c', name: 'Gamma', status: 'Live', tags: ['z'] },
        ]
          .filter((record) => !filter?.status || filter.status.includes(record.status))
          .filter((record) => !filter?.name || record.name === filter.name)
          .filter((record) => !where || matches(where, record.name))
          .slice(0, filter?.first ?? 2),
      node: (_: unknown, { id }: { id: string }) => (id === 't' ? { kind: 'Template', id: 't', query: 'SELECT 1' } : { kind: 'Dataset', id, name: id, status: 'Draft', tags: [] }),
      echo: (_: unknown, args: { count: number; statuses: string[] }) => `${args.count} ${args.statuses.join(',')}`,
    },
    Dataset: {
      broken: () => null,
      refused: () => {
        throw new GatewayError('FORBIDDEN', 'not for you');
      },
      late: async (record: { id: string }) => {
        await new Promise((resolve) => setImmediate(resolve));
        if (record.id === 'b') throw new Error('late failure');
        return record.id.length;
      },
    },
  },
});

interface Where {
  name?: string;
  _or?: Where[];
}
const matches = (where: Where, name: string): boolean => (where.name === undefined || where.name === name) && (!where._or || where._or.some((each) => matches(each, name)));

const OPERATIONS: { what: string; text: string; variables?: Record<string, unknown>; operationName?: string }[] = [
  { what: 'fields, aliases and lists', text: '{ datasets { id name n: name status tags } }' },
  { what: 'an input object with an enum list and a default', text: 'query($f: Filter) { datasets(filter: $f) { name status } }', variables: { f: { status: ['LIVE'], first: 5 } } },
  { what: 'an interface through fragments', text: '{ t: node(id: "t") { id ... on Template { query } } d: node(id: "d") { ...D } } fragment D on Dataset { name status }' },
  { what: '@skip and @include', text: 'query($yes: Boolean!) { datasets { name @include(if: $yes) status @skip(if: $yes) } }', variables: { yes: true } },
  { what: 'the gateway error of a resolver', text: '{ datasets { name refused } }' },
  { what: 'a null in a non-null field empties its parent', text: '{ datasets { name broken } }' },
  { what: 'an async field that rejects for one record', text: '{ datasets(filter: { status: [LIVE, DRAFT], first: 3 }) { name late } }' },
  { what: 'a variable of the wrong type', text: 'query($n: Int!) { echo(count: $n, statuses: [LIVE]) }', variables: { n: 'many' } },
  { what: 'a missing non-null variable', text: 'query($n: Int!) { echo(count: $n, statuses: [LIVE]) }', variables: {} },
  { what: 'an enum value that does not exist', text: 'query($s: [Status!]!) { echo(count: 1, statuses: $s) }', variables: { s: ['RETIRED'] } },
  { what: 'an input object with a field it lacks', text: 'query($f: Filter) { datasets(filter: $f) { name } }', variables: { f: { colour: 'red' } } },
  { what: 'a variable of an input type that contains itself', text: 'query($w: Where) { datasets(where: $w) { name } }', variables: { w: { _or: [{ name: 'Alpha' }, { _or: [{ name: 'Beta' }] }] } } },
  { what: 'a variable of an input type that contains itself, refused', text: 'query($w: Where) { datasets(where: $w) { name } }', variables: { w: { _or: [{ colour: 'red' }] } } },
  { what: 'one operation of several, by name', text: 'query A { echo(count: 1, statuses: [DRAFT]) } query B { datasets { id } }', operationName: 'B' },
  { what: 'an operation name that names none', text: 'query A { echo(count: 1, statuses: [DRAFT]) }', operationName: 'C' },
];

/** What a caller receives of a result, plus what the gateway's error handling reads from each error. */
function asSeen(result: ExecutionResult) {
  return {
    data: result.data,
    errors: result.errors?.map((error) => {
      expect(error).toBeInstanceOf(GraphQLError);
      const classified = classifyGraphQLError(error);
      return { ...error.toJSON(), classified: classified.kind === 'gateway' ? classified.error.code : classified.kind };
    }),
  };
}

describe('compiled execution', () => {
  // Room for the code of a few short documents only: the test below makes them take turns.
  const executeCompiled = compiledExecutor(schema, { maxSourceCharacters: 200 });

  it.each(OPERATIONS)('answers $what as graphql-js does', async ({ text, variables, operationName }) => {
    const document = parse(text);
    const expected = await execute({ schema, document, variableValues: variables, operationName });
    // Three times: graphql-js runs a document the first time, the second compiles it, the third runs the kept code.
    for (let run = 0; run < 3; run += 1) {
      const compiled = await executeCompiled({ document, documentKey: text, operationName, variableValues: variables, contextValue: {} });
      expect(asSeen(compiled)).toEqual(asSeen(expected));
    }
  });

  it('compiles a document the second time it runs, and leaves one whose variables take a self-containing input to graphql-js', async () => {
    const executor = compiledExecutor(schema, { maxSourceCharacters: 10_000 });
    const page = '{ datasets { id name } }';
    const filtered = 'query($w: Where) { datasets(where: $w) { name } }';
    const run = (text: string, variables?: Record<string, unknown>) => executor({ document: parse(text), documentKey: text, variableValues: variables, contextValue: {} });
    await run(page);
    await run(filtered, { w: { name: 'Alpha' } });
    expect(executor.stats()).toEqual({ compiled: 0, onGraphqlJs: 0, sourceCharacters: 0 });
    await run(page);
    await run(filtered, { w: { name: 'Alpha' } });
    expect(executor.stats()).toEqual({ compiled: 1, onGraphqlJs: 1, sourceCharacters: page.length });
  });

  it('keeps answering right, and keeps no more than its room, when more documents than it keeps take turns', async () => {
    const texts = Array.from({ length: 7 }, (_, n) => `{ echo(count: ${n}, statuses: [LIVE]) }`);
    for (let round = 0; round < 3; round += 1) {
      for (const [n, text] of texts.entries()) {
        const result = await executeCompiled({ document: parse(text), documentKey: text, contextValue: {} });
        expect(result).toEqual({ data: { echo: `${n} Live` } });
        expect(executeCompiled.stats().sourceCharacters).toBeLessThanOrEqual(200);
      }
    }
    // 7 texts of 36 characters do not fit in 200: the latest 5 are kept, compiled.
    expect(executeCompiled.stats().compiled).toBe(5);
  });
});
