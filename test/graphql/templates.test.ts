// Query templates over GraphQL (POST /graphql): what only GraphQL has. The behaviour both transports
// share is in test/contract/templates.ts and test/contract/template-run.ts; here are the types that
// refuse a request before any resolver runs (a missing field, an enum value outside SQL/JSON or
// AggregationLevel, a query that is not a String, a limit that is not an Int, an unknown filter or
// input field), the typed payloads of the mutations and `data` beside an error, the connection of
// templates (totalCount, edges and cursor pages), the `errors` entry of a refused run, a null limit
// and a left-out aggregationLevel, several runs in one request and the same rows as the REST entry.
// Every test uses names of its own.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectFailure, graphqlServiceOutcome } from '../contract/harness.js';
import { runRequest } from '../contract/template-run.js';
import { envelope, graphql, JSON_QUERY, SQL_QUERY, type GraphQLResponse } from '../support/api.js';
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
import { countStoredTemplates, expectTemplateNotStored, ISO_UTC, JSON_QUERY_OBJECT, seedSortkeyTemplates, seedTemplate, SORTKEY_IDS } from '../support/templates.js';

const SQL_BY_HOUR = runTemplateId('sqlByHour');

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

const FIELDS = 'id: templateId name query queryType createdBy updatedBy createdAt updatedAt';
const CONNECTION = 'edges { cursor node { id: templateId name queryType } } nodes { id: templateId name queryType } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } totalCount';

interface Template {
  id: string;
  name: string;
  queryType: 'SQL' | 'JSON';
}

interface Connection {
  edges: { cursor: string; node: Template }[];
  nodes: Template[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  totalCount: number;
}

function createTemplate(input: Record<string, unknown>): Promise<GraphQLResponse> {
  return graphql(gw, `mutation Create($input: CreateQueryTemplateInput!) { createTemplate(input: $input) { message template { ${FIELDS} } } }`, { input });
}

function updateTemplate(id: string, input: Record<string, unknown>): Promise<GraphQLResponse> {
  return graphql(gw, `mutation Update($id: ID!, $input: UpdateQueryTemplateInput!) { updateTemplate(id: $id, input: $input) { message template { ${FIELDS} } } }`, { id, input });
}

function listTemplates(variables: Record<string, unknown> = {}): Promise<GraphQLResponse> {
  return graphql(
    gw,
    `query List($filter: QueryTemplateFilter, $sort: [QueryTemplateSort!], $first: Int, $after: String) { templates(filter: $filter, sort: $sort, first: $first, after: $after) { ${CONNECTION} } }`,
    variables,
  );
}

async function listOk(variables: Record<string, unknown> = {}): Promise<Connection> {
  const response = await listTemplates(variables);
  expect(response.errors).toBeUndefined();
  return response.data!.templates as Connection;
}

/** GraphQL itself refused the request (type or validation level): status 400, no data, an error matching `message`. */
function expectRefusedByGraphQL(response: GraphQLResponse, message: RegExp): void {
  expect(response.status).toBe(400);
  expect(response.data ?? null).toBeNull();
  expect(response.errors?.length).toBeGreaterThan(0);
  expect(response.errors![0]!.message).toMatch(message);
}

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

describe('the types refuse before any resolver runs', () => {
  it('refuses a createTemplate without a name or without a queryType, and creates nothing', async () => {
    expectRefusedByGraphQL(await createTemplate({ queryType: 'SQL', query: SQL_QUERY }), /name/);
    expectRefusedByGraphQL(await createTemplate({ name: 'No Type Given', query: SQL_QUERY }), /queryType/);
    await expectTemplateNotStored(gw, 'No Type Given');
  });

  it('refuses a queryType other than SQL or JSON on create and on update, naming the value, and changes nothing', async () => {
    expectRefusedByGraphQL(await createTemplate({ name: 'Xml Type Given', queryType: 'XML', query: SQL_QUERY }), /XML/);
    await expectTemplateNotStored(gw, 'Xml Type Given');

    const id = await seedTemplate(gw, 'Update Bad Type');
    const before = await gw.sql('SELECT * FROM query_templates WHERE template_id = $1', [id]);
    expectRefusedByGraphQL(await updateTemplate(id, { queryType: 'XML', query: SQL_QUERY }), /XML/);
    expect((await gw.sql('SELECT * FROM query_templates WHERE template_id = $1', [id])).rows).toEqual(before.rows);
  });

  it('refuses a query given as an object (query is a String) and creates nothing', async () => {
    const response = await createTemplate({ name: 'Sql As Object', queryType: 'SQL', query: JSON_QUERY_OBJECT });
    expectRefusedByGraphQL(response, /query/);
    expect(response.errors![0]!.message).toMatch(/String/);
    await expectTemplateNotStored(gw, 'Sql As Object');
  });

  it('refuses an unknown filter key, naming it', async () => {
    expectRefusedByGraphQL(await listTemplates({ filter: { status: 'Live' } }), /status/);
  });
});

describe('payloads', () => {
  it('createTemplate and updateTemplate answer the stored template with every field, queryType as the enum value', async () => {
    const created = await createTemplate({ name: 'Payload Template', queryType: 'JSON', query: JSON_QUERY });
    expect(created.errors).toBeUndefined();
    expect(created.data!.createTemplate).toEqual({
      message: 'The query template has been saved successfully',
      template: {
        id: 'payload_template',
        name: 'Payload Template',
        query: JSON_QUERY,
        queryType: 'JSON',
        createdBy: 'SYSTEM',
        updatedBy: 'SYSTEM',
        createdAt: expect.stringMatching(ISO_UTC),
        updatedAt: expect.stringMatching(ISO_UTC),
      },
    });

    const updated = await updateTemplate('payload_template', { name: 'Payload Renamed', queryType: 'SQL', query: SQL_QUERY });
    expect(updated.errors).toBeUndefined();
    expect(updated.data!.updateTemplate).toMatchObject({
      message: 'Query template updated successfully',
      template: { id: 'payload_template', name: 'Payload Renamed', query: SQL_QUERY, queryType: 'SQL' },
    });
  });

  it('deleteTemplate answers the id it deleted beside the message', async () => {
    const id = await seedTemplate(gw, 'Payload Delete');
    const response = await graphql(gw, 'mutation Delete($id: ID!) { deleteTemplate(id: $id) { id message } }', { id });
    expect(response.errors).toBeUndefined();
    expect(response.data!.deleteTemplate).toEqual({ id: 'payload_delete', message: expect.stringContaining('payload_delete') });
  });

  it('answers data null beside a refused create, and template null beside a template that does not exist', async () => {
    await seedTemplate(gw, 'Taken Payload');
    const taken = await createTemplate({ name: 'Taken Payload', queryType: 'SQL', query: SQL_QUERY });
    expectFailure(graphqlServiceOutcome(taken, 'createTemplate'), 'QUERY_TEMPLATE_ALREADY_EXISTS', /Taken Payload/);
    expect(taken.data ?? null).toBeNull();

    const missing = await graphql(gw, 'query Read($id: ID!) { template(id: $id) { id: templateId } }', { id: 'never_created_template' });
    expectFailure(graphqlServiceOutcome(missing, 'template'), 'QUERY_TEMPLATE_NOT_EXISTS', /never_created_template/);
    expect(missing.data).toEqual({ template: null });
  });
});

describe('templates: the connection', () => {
  beforeAll(async () => {
    await seedSortkeyTemplates(gw);
    for (const name of ['Page One', 'Page Two', 'Page Three']) await seedTemplate(gw, name);
  });

  it('gives every template on one page without arguments: totalCount, no next page, edges holding the nodes', async () => {
    const connection = await listOk();
    const stored = await countStoredTemplates(gw);
    expect(connection.nodes).toHaveLength(stored);
    expect(connection.totalCount).toBe(stored);
    expect(connection.pageInfo.hasNextPage).toBe(false);
    expect(connection.nodes.map((t) => t.id)).toEqual(expect.arrayContaining(SORTKEY_IDS));
    expect(connection.edges.map((edge) => edge.node)).toEqual(connection.nodes);
  });

  it('counts only the templates of the filter in totalCount', async () => {
    expect((await listOk({ filter: { queryType: 'JSON' } })).totalCount).toBe(await countStoredTemplates(gw, 'json'));
    expect((await listOk({ filter: { queryType: 'SQL' } })).totalCount).toBe(await countStoredTemplates(gw, 'sql'));
  });

  it('walks every page with first/after: no duplicates or gaps, hasNextPage false only on the last page', async () => {
    const everything = await listOk({ first: 1000 });
    expect(everything.totalCount).toBe(await countStoredTemplates(gw));
    expect(everything.nodes.length).toBeGreaterThan(5);

    const seen: string[] = [];
    let after: string | null = null;
    for (let pages = 0; ; pages += 1) {
      expect(pages).toBeLessThan(everything.nodes.length);
      const page: Connection = await listOk({ first: 2, after });
      expect(page.totalCount).toBe(everything.totalCount);
      expect(page.nodes.length).toBeLessThanOrEqual(2);
      expect(page.pageInfo.hasPreviousPage).toBe(after !== null);
      seen.push(...page.nodes.map((t) => t.id));
      if (page.nodes.length > 0) expect(page.pageInfo.endCursor).toBe(page.edges.at(-1)!.cursor);
      if (!page.pageInfo.hasNextPage) break;
      expect(page.nodes).toHaveLength(2);
      after = page.pageInfo.endCursor;
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(everything.nodes.map((t) => t.id));
  });

  it('walks the pages of a filtered list with a totalCount of the filtered templates', async () => {
    const jsonCount = await countStoredTemplates(gw, 'json');
    const seen: string[] = [];
    let after: string | null = null;
    let hasNextPage = true;
    while (hasNextPage) {
      const page: Connection = await listOk({ filter: { queryType: 'JSON' }, first: 1, after });
      expect(page.totalCount).toBe(jsonCount);
      seen.push(...page.nodes.map((t) => t.id));
      ({ hasNextPage } = page.pageInfo);
      after = page.pageInfo.endCursor;
      expect(seen.length).toBeLessThanOrEqual(jsonCount);
    }
    expect(seen).toHaveLength(jsonCount);
    expect(new Set(seen).size).toBe(jsonCount);
  });

  it('returns QUERY_TEMPLATE_INVALID_INPUT naming a cursor the list never issued', async () => {
    for (const invented of ['not-a-cursor', Buffer.from('somewhere:5', 'utf8').toString('base64url')]) {
      const response = await listTemplates({ first: 2, after: invented });
      expectFailure(graphqlServiceOutcome(response, 'templates'), 'QUERY_TEMPLATE_INVALID_INPUT', /after/);
      expect(response.errors![0]!.message).toContain(invented);
      expect(response.data ?? null).toBeNull();
    }
  });
});

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
