// Schema inference over GraphQL (`inferSchema`). Runs the shared rule table of
// test/support/schema-inference-cases.ts end to end, as test/rest/dataschema.test.ts does over REST,
// plus the typed fields only GraphQL has and its answers to bad input.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { errorCode, graphql, type GraphQLResponse } from '../support/api.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { DETECTION_CASES, propertyAt, schemaPathOf, SUGGESTION_CASES, typeOf } from '../support/schema-inference-cases.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => {
  await gw?.stop();
});

const INFER = `query Infer($samples: [JSON!]!, $dataset: String!) {
  inferSchema(samples: $samples, dataset: $dataset) {
    schema
    suggestions { field path message severity advice resolutionType }
    configurations {
      indexConfiguration { index { label path } rollupSuggestions { field path cardinality index } }
      processing { dedupKeys dropDuplicates }
    }
    dataMappings
    removedKeys { key value }
  }
}`;

/** The GraphQL spelling of the original's severities. */
const SEVERITY: Record<string, string> = { 'MUST-FIX': 'MUST_FIX', MEDIUM: 'MEDIUM', LOW: 'LOW', '': 'INFO' };

function infer(samples: unknown, dataset: unknown = 'telemetry'): Promise<GraphQLResponse> {
  return graphql(gw, INFER, { samples, dataset });
}

async function inferOk(samples: unknown[]): Promise<Record<string, any>> {
  const response = await infer(samples);
  expect(response.errors).toBeUndefined();
  return response.data!.inferSchema as Record<string, any>;
}

/** Refused by GraphQL itself, before any resolver: HTTP 400 with a message matching `message`. */
function expectRefusedByGraphQL(response: GraphQLResponse, message: RegExp): void {
  expect(response.status).toBe(400);
  expect(response.errors?.[0]?.message).toMatch(message);
  expect(['BAD_USER_INPUT', 'GRAPHQL_VALIDATION_FAILED']).toContain(errorCode(response));
}

describe('inferSchema: type detection', () => {
  it.each(DETECTION_CASES)('$name', async ({ samples, at, expected }) => {
    const { schema } = await inferOk(samples);
    expect(typeOf(propertyAt(schema, at))).toEqual(expected);
  });
});

describe('inferSchema: suggestions, typed in the list and as the original spells them in the document', () => {
  it.each(SUGGESTION_CASES)('$name', async ({ samples, at, expected }) => {
    const { schema, suggestions } = await inferOk(samples);
    const path = schemaPathOf(at);
    const listed = (suggestions as Record<string, string | null>[]).filter((suggestion) => suggestion.path === path);
    const found = listed.find((suggestion) => expected.message.test(suggestion.message!));
    expect(found ?? listed).toMatchObject({ severity: SEVERITY[expected.severity], resolutionType: expected.resolutionType ?? null });
    if (expected.advice) expect(found!.advice).toMatch(expected.advice);
    expect(propertyAt(schema, at)?.suggestions).toContainEqual(expect.objectContaining({ message: found!.message, severity: expected.severity, path }));
  });
});

describe('inferSchema: the result', () => {
  const samples = [
    { mid: '0b7e2a52-5f0c-4b53-9d8e-1f0c3a9b6d11', ets: 1_700_000_000_000, status: 'ok', tags: [], ctx: { at: '2024-05-01T10:00:00Z' } },
    { mid: '5c2f7d0e-8a41-4c6b-b0f3-2e9d7a1c4b22', ets: 1_700_000_001_000, status: 'ok', tags: [], ctx: { at: '2024-05-01T11:00:00Z' } },
  ];

  it('answers the schema document, the configurations as typed lists, the mappings and the removed keys', async () => {
    const result = await inferOk(samples);
    expect(result.schema).toMatchObject({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', required: ['ctx', 'ets', 'mid', 'status'] });
    expect(result.configurations).toEqual({
      indexConfiguration: {
        index: [
          { label: 'Event Arrival Time', path: 'obsrv_meta.syncts' },
          { label: 'ctx.at', path: 'ctx.at' },
          { label: 'ets', path: 'ets' },
        ],
        rollupSuggestions: [
          { field: 'mid', path: 'properties.mid', cardinality: 50, index: false },
          { field: 'status', path: 'properties.status', cardinality: 0, index: true },
        ],
      },
      processing: { dedupKeys: ['mid'], dropDuplicates: ['Yes', 'No'] },
    });
    expect(Object.keys(result.dataMappings)).toEqual(['text', 'number', 'object', 'array', 'boolean']);
    expect(result.removedKeys).toEqual([{ key: 'tags', value: [] }]);
  });

  it('answers an empty removedKeys list when nothing was removed', async () => {
    expect((await inferOk([{ a: 1 }])).removedKeys).toEqual([]);
  });

  it('lists the suggestions in document order, each with its field path', async () => {
    const { suggestions } = await inferOk([{ b: { 'x y': 1 }, a: 1 }, { b: { 'x y': 2 } }]);
    expect(suggestions.map((s: { field: string; resolutionType: string }) => [s.field, s.resolutionType])).toEqual([
      ['a', 'OPTIONAL'],
      ['b["x y"]', 'NAMING'],
    ]);
  });

  it('gives the same result for the same samples in another order', async () => {
    const first = await inferOk(samples);
    const second = await inferOk([...samples].reverse());
    expect(JSON.stringify(second)).toBe(JSON.stringify(first));
  });
});

// The service's rules (samples, dataset) answer one message on both transports: test/contract/schema-inference.ts.
describe('inferSchema: bad input GraphQL refuses itself', () => {
  it('refuses a dataset that is not a string', async () => {
    expectRefusedByGraphQL(await infer([{ a: 1 }], 5), /Variable "\$dataset".*String/);
  });

  it('refuses a query without the dataset argument', async () => {
    const response = await graphql(gw, 'query { inferSchema(samples: [{a: 1}]) { schema } }');
    expectRefusedByGraphQL(response, /argument "dataset"/);
  });

  it('refuses a field that InferredSchema does not have', async () => {
    const response = await graphql(gw, 'query { inferSchema(samples: [{a: 1}], dataset: "d") { schema sampleCount } }');
    expectRefusedByGraphQL(response, /Cannot query field "sampleCount"/);
  });
});
