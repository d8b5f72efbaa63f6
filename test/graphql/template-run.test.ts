// Running query templates over GraphQL, runTemplate(id, input): what only GraphQL has. The runs both
// transports share are in test/contract/template-run.ts; here are the `errors` entry of a refused
// run, the input's types (required fields, Int, the AggregationLevel enum, unknown fields) refusing
// before any resolver runs, a null limit and a left-out aggregationLevel, several runs in one
// request, and the same rows as the REST entry.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { runRequest } from '../contract/template-run.js';
import { envelope, graphql, type GraphQLResponse } from '../support/api.js';
import { seedDataset, type Json } from '../support/datasets.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import {
  DAY_END,
  DAY_START,
  EVENTS,
  ingestEvents,
  RUN_DATASETS,
  runTemplateId,
  SALES_SCHEMA_OVERRIDES,
  seedRunTemplates,
  SQL_BY_HOUR_ROWS,
  SQL_BY_LEVEL_ROWS,
  TIMESERIES_HOUR_ITEMS,
} from '../support/template-run.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
  await seedDataset(gw, RUN_DATASETS.sales, 'Live', SALES_SCHEMA_OVERRIDES);
  await ingestEvents(gw, RUN_DATASETS.sales, EVENTS, 'gql-run-sales-1');
  await seedRunTemplates(gw, ['sqlByHour', 'sqlByLevel', 'timeseriesHour', 'groupBy', 'javascriptFilter']);
});
afterAll(async () => {
  await gw?.stop();
});

const SQL_BY_HOUR = runTemplateId('sqlByHour');

/** The GraphQL input of a run over the sales day, by hour; `over` replaces its fields (undefined leaves one out). */
function input(over: Json = {}): Json {
  return { startDate: DAY_START, endDate: DAY_END, dataset: RUN_DATASETS.sales, aggregationLevel: 'HOUR', ...over };
}

function run(id: string, runInput: Json = input()): Promise<GraphQLResponse> {
  return graphql(gw, 'query Run($id: ID!, $input: RunTemplateInput!) { runTemplate(id: $id, input: $input) }', { id, input: runInput });
}

async function runOk(id: string, runInput: Json): Promise<unknown> {
  const response = await run(id, runInput);
  expect({ status: response.status, errors: response.errors }).toEqual({ status: 200, errors: undefined });
  return response.data!.runTemplate;
}

/** GraphQL itself refused the request (type or validation level): status 400, no data, an error matching `message`. */
function expectRefusedByGraphQL(response: GraphQLResponse, message: RegExp): void {
  expect(response.status).toBe(400);
  expect(response.data ?? null).toBeNull();
  expect(response.errors?.length).toBeGreaterThan(0);
  expect(response.errors![0]!.message).toMatch(message);
}

describe('runTemplate: a refused run', () => {
  it.each<[string, string, Json]>([
    ['QUERY_TEMPLATE_NOT_EXISTS', 'run_no_such_template', {}],
    ['DATA_OUT_SOURCE_NOT_FOUND', SQL_BY_HOUR, { dataset: 'run_nowhere' }],
    ['DATA_OUT_INVALID_DATE_RANGE', SQL_BY_HOUR, { startDate: '2025-03-02', endDate: '2026-03-02' }],
    ['QUERY_TEMPLATE_INVALID_INPUT', SQL_BY_HOUR, { limit: 0 }],
    ['DATA_OUT_INVALID_INPUT', runTemplateId('javascriptFilter'), {}],
  ])('answers %s as one error at path runTemplate, with data null', async (code, id, over) => {
    const response = await run(id, input(over));
    expect(response.status).toBe(200);
    expect(response.errors).toHaveLength(1);
    expect(response.errors![0]!).toMatchObject({ path: ['runTemplate'], extensions: { code } });
    expect(response.data ?? null).toBeNull();
  });
});

describe('runTemplate: the input', () => {
  it('fills {{LIMIT}} with 5000 when the limit is null', async () => {
    expect(await runOk(SQL_BY_HOUR, input({ limit: null }))).toStrictEqual(SQL_BY_HOUR_ROWS);
  });

  it('buckets by day when the input gives no aggregationLevel', async () => {
    expect(await runOk(runTemplateId('sqlByLevel'), input({ aggregationLevel: undefined }))).toStrictEqual(SQL_BY_LEVEL_ROWS.day);
  });

  it.each(['startDate', 'endDate', 'dataset'])('is refused by GraphQL naming %s when it is missing', async (field) => {
    expectRefusedByGraphQL(await run(SQL_BY_HOUR, input({ [field]: undefined })), new RegExp(field));
  });

  it.each([
    ['not an integer', 1.5],
    ['a numeric string', '10'],
    ['beyond 32 bits', 2 ** 31],
  ])('is refused by GraphQL when limit is %s', async (_, limit) => {
    expectRefusedByGraphQL(await run(SQL_BY_HOUR, input({ limit })), /Int/);
  });

  it.each(['hourly', 'hour', 'MINUTE', 'PT1H', ''])('is refused by GraphQL when aggregationLevel is %j', async (aggregationLevel) => {
    expectRefusedByGraphQL(await run(SQL_BY_HOUR, input({ aggregationLevel })), /AggregationLevel/);
  });

  it('is refused by GraphQL naming a field the input does not know', async () => {
    expectRefusedByGraphQL(await run(SQL_BY_HOUR, { ...input(), granularity: 'hour' }), /granularity/);
  });
});

describe('runTemplate in a request', () => {
  it('runs several templates in one request, each with its own values', async () => {
    const response = await graphql(
      gw,
      `query Two($a: RunTemplateInput!, $b: RunTemplateInput!) {
        first: runTemplate(id: "${SQL_BY_HOUR}", input: $a)
        second: runTemplate(id: "${runTemplateId('timeseriesHour')}", input: $b)
      }`,
      { a: input({ limit: 1 }), b: input() },
    );
    expect(response.errors).toBeUndefined();
    expect(response.data).toStrictEqual({ first: SQL_BY_HOUR_ROWS.slice(0, 1), second: TIMESERIES_HOUR_ITEMS });
  });

  it('gives the same result as POST /v2/template/query/:id for the same template and values', async () => {
    const rest = await gw.http.post(`/v2/template/query/${runTemplateId('groupBy')}`).send(envelope('api.query.template.query', runRequest()));
    expect(rest.status).toBe(200);
    expect(await runOk(runTemplateId('groupBy'), input())).toStrictEqual(rest.body.result);
  });
});
