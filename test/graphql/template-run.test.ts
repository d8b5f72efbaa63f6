// Running query templates over GraphQL: runTemplate(id, input) (contract 2.3, 4.3, 7, 8; issue 6)
// on the embedded query engine, end to end: import, publish Live, ingest events with known
// timestamps, run SQL and JSON templates, and get exact rows and buckets back. Mirrors
// test/rest/template-run.test.ts rule by rule; the fixtures and expected results are shared
// (test/support/template-run.ts). Tests share one database and only read what beforeAll arranged,
// except those that arrange datasets of their own (ids of their own).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { envelope, errorCode, graphql, type GraphQLResponse } from '../support/api.js';
import { seedDataset, transition, type Json } from '../support/datasets.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import {
  DAY_END,
  DAY_START,
  EVENTS,
  FILTER_CASES,
  filteredTimeseries,
  GROUP_BY_HOUR_ITEMS,
  GROUP_BY_ITEMS,
  JSON_TEMPLATES,
  OTHER_EVENTS,
  SALES_COLUMNS,
  SALES_SCHEMA_OVERRIDES,
  SCAN_COLUMNS,
  SCAN_EVENTS,
  SQL,
  SQL_BY_HOUR_ROWS,
  SQL_BY_LEVEL_ROWS,
  SQL_BY_OS_ROWS,
  SQL_RAW_ROWS,
  TIME_BOUNDARY_FILTERED_ITEMS,
  TIME_BOUNDARY_ITEMS,
  TIMESERIES_ALL_ITEMS,
  TIMESERIES_COUNT_BY_HOUR,
  TIMESERIES_HOUR_ITEMS,
  TOP_N_HOUR_ITEMS,
  TOP_N_ITEMS,
} from '../support/template-run.js';

let gw: TestGateway;

const SALES = 'gql_run_sales';
const OTHER = 'gql_run_other';
const DRAFT = 'gql_run_draft';
const RETIRED = 'gql_run_retired';

/** Template names (ids are the names in lower case with underscores). */
const NAMES = {
  sqlByHour: 'Run Sql By Hour',
  sqlByOs: 'Run Sql By Os',
  sqlRaw: 'Run Sql Raw',
  sqlByLevel: 'Run Sql By Level',
  sqlOriginalForms: 'Run Sql Original Forms',
  sqlPlaceholderInString: 'Run Sql Placeholder In String',
  timeseriesHour: 'Run Json Timeseries Hour',
  timeseriesAll: 'Run Json Timeseries All',
  timeseriesPeriod: 'Run Json Timeseries Period',
  timeseriesLevel: 'Run Json Timeseries Level',
  groupBy: 'Run Json Group By',
  groupByHour: 'Run Json Group By Hour',
  topN: 'Run Json Top N',
  topNHour: 'Run Json Top N Hour',
  scan: 'Run Json Scan',
  timeBoundary: 'Run Json Time Boundary',
  timeBoundaryFiltered: 'Run Json Time Boundary Filtered',
  wideIntervals: 'Run Json Wide Intervals',
  javascriptFilter: 'Run Json Javascript Filter',
  hyperUnique: 'Run Json Hyper Unique',
  postAggregations: 'Run Json Post Aggregations',
} as const;
type TemplateKey = keyof typeof NAMES;

const TEMPLATES: Record<TemplateKey, { type: 'SQL' | 'JSON'; query: string }> = {
  sqlByHour: { type: 'SQL', query: SQL.byHour },
  sqlByOs: { type: 'SQL', query: SQL.byOs },
  sqlRaw: { type: 'SQL', query: SQL.raw },
  sqlByLevel: { type: 'SQL', query: SQL.byLevel },
  sqlOriginalForms: { type: 'SQL', query: SQL.originalForms },
  sqlPlaceholderInString: { type: 'SQL', query: SQL.placeholderInString },
  timeseriesHour: { type: 'JSON', query: JSON_TEMPLATES.timeseriesHour },
  timeseriesAll: { type: 'JSON', query: JSON_TEMPLATES.timeseriesAll },
  timeseriesPeriod: { type: 'JSON', query: JSON_TEMPLATES.timeseriesPeriod },
  timeseriesLevel: { type: 'JSON', query: JSON_TEMPLATES.timeseriesLevel },
  groupBy: { type: 'JSON', query: JSON_TEMPLATES.groupBy },
  groupByHour: { type: 'JSON', query: JSON_TEMPLATES.groupByHour },
  topN: { type: 'JSON', query: JSON_TEMPLATES.topN },
  topNHour: { type: 'JSON', query: JSON_TEMPLATES.topNHour },
  scan: { type: 'JSON', query: JSON_TEMPLATES.scan },
  timeBoundary: { type: 'JSON', query: JSON_TEMPLATES.timeBoundary },
  timeBoundaryFiltered: { type: 'JSON', query: JSON_TEMPLATES.timeBoundaryFiltered },
  wideIntervals: { type: 'JSON', query: JSON_TEMPLATES.wideIntervals },
  javascriptFilter: { type: 'JSON', query: JSON_TEMPLATES.javascriptFilter },
  hyperUnique: { type: 'JSON', query: JSON_TEMPLATES.hyperUnique },
  postAggregations: { type: 'JSON', query: JSON_TEMPLATES.postAggregations },
};

function idOf(key: TemplateKey): string {
  return NAMES[key].toLowerCase().replaceAll(' ', '_');
}

beforeAll(async () => {
  gw = await startTestGateway();
  await Promise.all([seedDataset(gw, SALES, 'Live', SALES_SCHEMA_OVERRIDES), seedDataset(gw, OTHER, 'Live'), seedDataset(gw, DRAFT, 'Draft'), seedDataset(gw, RETIRED, 'Retired')]);
  await ingestOk(SALES, EVENTS, 'gql-run-sales-1');
  await ingestOk(OTHER, OTHER_EVENTS, 'gql-run-other-1');
  for (const key of Object.keys(NAMES) as TemplateKey[]) await createTemplateOk(NAMES[key], TEMPLATES[key].type, TEMPLATES[key].query);
}, 60_000);
afterAll(async () => {
  await gw?.stop();
});

// ---------------------------------------------------------------------------------------------
// Helpers (local to this file)

const RESPONSE_CODE: Record<string, string> = {
  QUERY_TEMPLATE_INVALID_INPUT: 'BAD_REQUEST',
  QUERY_TEMPLATE_NOT_EXISTS: 'NOT_FOUND',
  DATA_OUT_INVALID_INPUT: 'BAD_REQUEST',
  DATA_OUT_INVALID_DATE_RANGE: 'BAD_REQUEST',
  DATA_OUT_SOURCE_NOT_FOUND: 'NOT_FOUND',
};

async function ingestOk(datasetId: string, data: Json[], msgid: string): Promise<void> {
  const response = await graphql(gw, 'mutation Ingest($id: ID!, $data: JSON!, $msgid: String) { ingest(datasetId: $id, data: $data, msgid: $msgid) { message } }', {
    id: datasetId,
    data,
    msgid,
  });
  if (response.errors) throw new Error(`ingest into ${datasetId} failed: ${JSON.stringify(response.errors)}`);
}

async function createTemplateOk(name: string, queryType: 'SQL' | 'JSON', query: string): Promise<void> {
  const response = await graphql(gw, 'mutation Create($input: CreateQueryTemplateInput!) { createTemplate(input: $input) { template { id } } }', {
    input: { name, queryType, query },
  });
  if (response.errors) throw new Error(`creating template "${name}" failed: ${JSON.stringify(response.errors)}`);
}

interface RunInput {
  startDate?: unknown;
  endDate?: unknown;
  dataset?: unknown;
  aggregationLevel?: unknown;
  limit?: unknown;
}

/** The input of a run over the sales day, by hour; `over` replaces fields (undefined removes one). */
function input(over: RunInput = {}): Json {
  const base: Json = { startDate: DAY_START, endDate: DAY_END, dataset: SALES, aggregationLevel: 'HOUR' };
  const merged: Json = { ...base, ...over };
  return Object.fromEntries(Object.entries(merged).filter(([, value]) => value !== undefined));
}

function run(id: string, runInput: Json = input()): Promise<GraphQLResponse> {
  return graphql(gw, 'query Run($id: ID!, $input: RunTemplateInput!) { runTemplate(id: $id, input: $input) }', { id, input: runInput });
}

/** Runs a template that must succeed and returns its result array. */
async function runOk(key: TemplateKey, over: RunInput = {}): Promise<unknown[]> {
  const response = await run(idOf(key), input(over));
  expect({ status: response.status, errors: response.errors }).toEqual({ status: 200, errors: undefined });
  expect(Array.isArray(response.data!.runTemplate)).toBe(true);
  return response.data!.runTemplate as unknown[];
}

/** A single error from our services: contract code, its kind, and a message matching `message`. */
function expectFailure(response: GraphQLResponse, code: string, message: RegExp): void {
  expect(response.status).toBe(200);
  expect(response.errors).toHaveLength(1);
  expect({ code: errorCode(response), responseCode: response.errors![0]!.extensions?.responseCode }).toEqual({ code, responseCode: RESPONSE_CODE[code] });
  expect(response.errors![0]!.path).toEqual(['runTemplate']);
  expect(response.data ?? null).toBeNull();
  expect(response.errors![0]!.message).toMatch(message);
}

/** GraphQL itself refused the request (type or validation level): no data, an error matching `message`. */
function expectRefusedByGraphQL(response: GraphQLResponse, message: RegExp): void {
  expect(response.status).toBe(400);
  expect(response.data ?? null).toBeNull();
  expect(response.errors?.length).toBeGreaterThan(0);
  expect(response.errors![0]!.message).toMatch(message);
}

// ---------------------------------------------------------------------------------------------

describe('runTemplate with a sql template', () => {
  it('buckets by hour with TIME_FLOOR and gives COUNT, SUM, MIN, MAX and AVG per bucket, __time first, in order', async () => {
    const rows = await runOk('sqlByHour');
    expect(rows).toStrictEqual(SQL_BY_HOUR_ROWS);
  });

  it('keeps only events in [startDate, endDate): one second before the start and exactly at the end are left out', async () => {
    const rows = (await runOk('sqlRaw')) as Json[];
    expect(rows.map((row) => row.id)).toEqual(['e1', 'e2', 'e3', 'e4', 'e5', 'e6']);
  });

  it('gives every row __time and every data-schema field by name (nested ones dotted), with nulls kept', async () => {
    const rows = (await runOk('sqlRaw')) as Json[];
    expect(rows).toStrictEqual(SQL_RAW_ROWS);
    for (const row of rows) expect(Object.keys(row).sort()).toEqual(['__time', ...SALES_COLUMNS].sort());
  });

  it('filters on a field, groups by a nested field by its quoted dotted name and orders descending (a null group kept)', async () => {
    const rows = await runOk('sqlByOs');
    expect(rows).toStrictEqual(SQL_BY_OS_ROWS);
  });

  it('fills {{LIMIT}} with the input limit', async () => {
    expect(await runOk('sqlByHour', { limit: 2 })).toStrictEqual(SQL_BY_HOUR_ROWS.slice(0, 2));
    expect(await runOk('sqlByHour', { limit: 1 })).toStrictEqual(SQL_BY_HOUR_ROWS.slice(0, 1));
  });

  it('fills {{LIMIT}} with 5000 when the input gives no limit (or a null one)', async () => {
    expect(await runOk('sqlByHour', { limit: undefined })).toStrictEqual(SQL_BY_HOUR_ROWS);
    expect(await runOk('sqlByHour', { limit: null })).toStrictEqual(SQL_BY_HOUR_ROWS);
    expect(await runOk('sqlByHour', { limit: 5000 })).toStrictEqual(SQL_BY_HOUR_ROWS);
  });

  it.each(Object.entries(SQL_BY_LEVEL_ROWS))('fills {{AGGREGATIONLEVEL}} with the period of aggregationLevel %s', async (level, expected) => {
    expect(await runOk('sqlByLevel', { aggregationLevel: level.toUpperCase() })).toStrictEqual(expected);
  });

  it('buckets by day when the input gives no aggregationLevel', async () => {
    expect(await runOk('sqlByLevel', { aggregationLevel: undefined })).toStrictEqual(SQL_BY_LEVEL_ROWS.day);
  });

  it("accepts the original's spellings: '{{STARTDATE}}' in quotes, TIMESTAMP '...', {{LIMITS}} and lower-case names", async () => {
    const rows = (await runOk('sqlOriginalForms', { limit: 4 })) as Json[];
    expect(rows).toStrictEqual([{ id: 'e1' }, { id: 'e2' }, { id: 'e3' }, { id: 'e4' }]);
  });

  it('reads "YYYY-MM-DD HH:mm:ss" dates as UTC, as the original wrote them', async () => {
    const rows = await runOk('sqlByHour', { startDate: '2026-03-02 10:00:00', endDate: '2026-03-02 11:00:00' });
    expect(rows).toStrictEqual(SQL_BY_HOUR_ROWS.slice(0, 1));
  });

  it('reads ISO 8601 dates with an offset as the instant they name', async () => {
    // 15:30 at +05:30 is 10:00 UTC; 17:30 at +05:30 is 12:00 UTC.
    const rows = await runOk('sqlByHour', { startDate: '2026-03-02T15:30:00+05:30', endDate: '2026-03-02T17:30:00+05:30' });
    expect(rows).toStrictEqual(SQL_BY_HOUR_ROWS.slice(0, 2));
  });

  it('gives an empty array when no event falls in the range', async () => {
    expect(await runOk('sqlByHour', { startDate: '2026-02-01', endDate: '2026-02-02' })).toEqual([]);
  });

  it('never sees the events of another dataset (that dataset gives its own)', async () => {
    const rows = (await runOk('sqlRaw', { dataset: OTHER })) as Json[];
    expect(rows.map((row) => [row.id, row.amount])).toEqual([
      ['o1', 5000],
      ['o2', 6000],
    ]);
  });

  it('runs several templates in one request, each with its own values', async () => {
    const response = await graphql(
      gw,
      `query Two($a: RunTemplateInput!, $b: RunTemplateInput!) {
        first: runTemplate(id: "${idOf('sqlByHour')}", input: $a)
        second: runTemplate(id: "${idOf('timeseriesHour')}", input: $b)
      }`,
      { a: input({ limit: 1 }), b: input() },
    );
    expect(response.errors).toBeUndefined();
    expect(response.data).toStrictEqual({ first: SQL_BY_HOUR_ROWS.slice(0, 1), second: TIMESERIES_HOUR_ITEMS });
  });
});

describe('runTemplate with a json (Druid native) template', () => {
  it('answers a timeseries by hour with [{timestamp, result}] buckets of count, longSum, doubleSum, min and max', async () => {
    expect(await runOk('timeseriesHour')).toStrictEqual(TIMESERIES_HOUR_ITEMS);
  });

  it('answers a timeseries with granularity all with one bucket stamped with the start of the interval', async () => {
    expect(await runOk('timeseriesAll')).toStrictEqual(TIMESERIES_ALL_ITEMS);
  });

  it('buckets a timeseries by the aggregationLevel when the template writes its granularity as a period of {{AGGREGATIONLEVEL}}', async () => {
    expect(await runOk('timeseriesPeriod', { aggregationLevel: 'HOUR' })).toStrictEqual(TIMESERIES_COUNT_BY_HOUR);
    expect(await runOk('timeseriesPeriod', { aggregationLevel: 'DAY' })).toStrictEqual([{ timestamp: '2026-03-02T00:00:00.000Z', result: { events: 6 } }]);
  });

  it('buckets a timeseries by the aggregationLevel when the template writes "granularity": "{{AGGREGATIONLEVEL}}"', async () => {
    expect(await runOk('timeseriesLevel', { aggregationLevel: 'HOUR' })).toStrictEqual(TIMESERIES_COUNT_BY_HOUR);
    expect(await runOk('timeseriesLevel', { aggregationLevel: 'DAY' })).toStrictEqual([{ timestamp: '2026-03-02T00:00:00.000Z', result: { events: 6 } }]);
  });

  it('answers a groupBy on a field and a nested field with its limitSpec order and limit applied', async () => {
    expect(await runOk('groupBy')).toStrictEqual(GROUP_BY_ITEMS);
  });

  it('answers a groupBy by hour ordered by time, then by the dimension', async () => {
    expect(await runOk('groupByHour')).toStrictEqual(GROUP_BY_HOUR_ITEMS);
  });

  it('answers a topN with the threshold best values of the dimension by the metric', async () => {
    expect(await runOk('topN')).toStrictEqual(TOP_N_ITEMS);
  });

  it('answers a topN by hour with the best value of each hour', async () => {
    expect(await runOk('topNHour')).toStrictEqual(TOP_N_HOUR_ITEMS);
  });

  it('answers a scan with the listed columns of every event in time order, nulls kept', async () => {
    const items = (await runOk('scan')) as Json[];
    expect(items).toHaveLength(1);
    expect(items[0]!.columns).toEqual(SCAN_COLUMNS);
    expect(items[0]!.events).toStrictEqual(SCAN_EVENTS);
  });

  it('fills "limit": {{LIMIT}} of a scan with the input limit', async () => {
    const items = (await runOk('scan', { limit: 2 })) as Json[];
    expect(items[0]!.events).toStrictEqual(SCAN_EVENTS.slice(0, 2));
  });

  it('answers a timeBoundary with the first and last event time of the range', async () => {
    expect(await runOk('timeBoundary')).toStrictEqual(TIME_BOUNDARY_ITEMS);
  });

  it('answers a filtered timeBoundary with the first and last time of the matching events', async () => {
    expect(await runOk('timeBoundaryFiltered')).toStrictEqual(TIME_BOUNDARY_FILTERED_ITEMS);
  });

  it('gives an empty array when no event falls in the range', async () => {
    expect(await runOk('timeseriesHour', { startDate: '2026-02-01', endDate: '2026-02-02' })).toEqual([]);
  });

  describe('filters', () => {
    let index = 0;
    it.each(FILTER_CASES)('applies a %s filter', async (_, filter, expected) => {
      index += 1;
      const name = `Run Json Filter ${index}`;
      await createTemplateOk(name, 'JSON', filteredTimeseries(filter));
      const response = await run(name.toLowerCase().replaceAll(' ', '_'));
      expect(response.errors).toBeUndefined();
      expect(response.data!.runTemplate).toStrictEqual([{ timestamp: '2026-03-02T00:00:00.000Z', result: expected }]);
    });
  });
});

describe('runTemplate: the date range', () => {
  it('accepts a range of exactly 30 days', async () => {
    expect(await runOk('sqlByHour', { startDate: '2026-02-03T00:00:00Z', endDate: '2026-03-05T00:00:00Z' })).toEqual(expect.any(Array));
    expect(await runOk('timeseriesHour', { startDate: '2026-02-03T00:00:00Z', endDate: '2026-03-05T00:00:00Z' })).toEqual(expect.any(Array));
  });

  it.each([
    ['sql', 'sqlByHour'],
    ['json', 'timeseriesHour'],
  ] as const)('fails with DATA_OUT_INVALID_DATE_RANGE for a %s template when the range is over 30 days', async (_, key) => {
    const oneSecondOver = await run(idOf(key), input({ startDate: '2026-02-03T00:00:00Z', endDate: '2026-03-05T00:00:01Z' }));
    expectFailure(oneSecondOver, 'DATA_OUT_INVALID_DATE_RANGE', /30 days/);
    const aYear = await run(idOf(key), input({ startDate: '2025-03-02', endDate: '2026-03-02' }));
    expectFailure(aYear, 'DATA_OUT_INVALID_DATE_RANGE', /30 days/);
  });

  it.each([
    ['sql', 'sqlByHour'],
    ['json', 'timeseriesHour'],
  ] as const)('fails with DATA_OUT_INVALID_DATE_RANGE for a %s template when endDate is before startDate', async (_, key) => {
    const response = await run(idOf(key), input({ startDate: DAY_END, endDate: DAY_START }));
    expectFailure(response, 'DATA_OUT_INVALID_DATE_RANGE', /enddate|range/i);
  });

  it('fails with DATA_OUT_INVALID_DATE_RANGE for a json template whose own intervals span over 30 days', async () => {
    const response = await run(idOf('wideIntervals'));
    expectFailure(response, 'DATA_OUT_INVALID_DATE_RANGE', /30 days/);
  });

  it.each([
    ['a word', { startDate: 'yesterday' }],
    ['a month 13', { startDate: '2026-13-01' }],
    ['a day that is not on the calendar (30 February)', { startDate: '2026-02-30' }],
    ['an hour 25', { endDate: '2026-03-02T25:00:00Z' }],
    ['a date followed by text', { endDate: '2026-03-02 garbage' }],
    ['NaN', { startDate: 'NaN' }],
    ['a date with an SQL comment inside', { startDate: '2026-03-02 /* */ 00:00:00' }],
    ['a date with a NUL after it', { startDate: '2026-03-02\u0000' }],
  ])('fails with QUERY_TEMPLATE_INVALID_INPUT when a date cannot be parsed: %s', async (_, over) => {
    for (const key of ['sqlByHour', 'timeseriesHour'] as const) {
      const response = await run(idOf(key), input(over));
      expectFailure(response, 'QUERY_TEMPLATE_INVALID_INPUT', /date/);
    }
  });
});

describe('runTemplate: datasets that cannot be queried', () => {
  it.each([
    ['does not exist', 'gql_run_nowhere'],
    ['has only a Draft', DRAFT],
    ['is Retired', RETIRED],
  ])('fails with DATA_OUT_SOURCE_NOT_FOUND naming a dataset that %s (sql and json templates)', async (_, dataset) => {
    for (const key of ['sqlByHour', 'timeseriesHour'] as const) {
      const response = await run(idOf(key), input({ dataset }));
      expectFailure(response, 'DATA_OUT_SOURCE_NOT_FOUND', new RegExp(dataset));
    }
  });

  it('fails with DATA_OUT_SOURCE_NOT_FOUND for a dataset that was deleted', async () => {
    const id = 'gql_run_deleted';
    await seedDataset(gw, id, 'Live', SALES_SCHEMA_OVERRIDES);
    expect(await runOk('sqlByHour', { dataset: id })).toEqual([]);
    await transition(gw, id, 'Delete');
    expectFailure(await run(idOf('sqlByHour'), input({ dataset: id })), 'DATA_OUT_SOURCE_NOT_FOUND', /gql_run_deleted/);
  });

  it('stops answering once a Live dataset is retired', async () => {
    const id = 'gql_run_retire_later';
    await seedDataset(gw, id, 'Live', SALES_SCHEMA_OVERRIDES);
    expect(await runOk('timeseriesHour', { dataset: id })).toEqual([]);
    await transition(gw, id, 'Retired');
    expectFailure(await run(idOf('timeseriesHour'), input({ dataset: id })), 'DATA_OUT_SOURCE_NOT_FOUND', /gql_run_retire_later/);
  });

  it('fails with DATA_OUT_SOURCE_NOT_FOUND for a Live dataset whose datasource is missing', async () => {
    const id = 'gql_run_no_view';
    await seedDataset(gw, id, 'Live', SALES_SCHEMA_OVERRIDES);
    await gw.sql(`DROP VIEW datasources."${id}"`);
    for (const key of ['sqlByHour', 'timeseriesHour'] as const) {
      expectFailure(await run(idOf(key), input({ dataset: id })), 'DATA_OUT_SOURCE_NOT_FOUND', /gql_run_no_view/);
    }
  });

  it('still answers for a Live dataset that has a Draft of its next version', async () => {
    const id = 'gql_run_live_with_draft';
    await seedDataset(gw, id, 'LiveWithDraft', SALES_SCHEMA_OVERRIDES);
    expect(await runOk('sqlByHour', { dataset: id })).toEqual([]);
  });
});

describe('runTemplate: input validation', () => {
  it('fails with QUERY_TEMPLATE_NOT_EXISTS naming a template that does not exist', async () => {
    expectFailure(await run('gql_run_no_such_template'), 'QUERY_TEMPLATE_NOT_EXISTS', /gql_run_no_such_template/);
  });

  it.each(['startDate', 'endDate', 'dataset'])('is refused by GraphQL naming %s when it is missing', async (field) => {
    const response = await run(idOf('sqlByHour'), input({ [field]: undefined }));
    expectRefusedByGraphQL(response, new RegExp(field));
  });

  it.each([
    ['0', 0],
    ['above 5000', 5001],
    ['negative', -1],
  ])('fails with QUERY_TEMPLATE_INVALID_INPUT when limit is %s (sql and json templates)', async (_, limit) => {
    for (const key of ['sqlByHour', 'scan'] as const) {
      const response = await run(idOf(key), input({ limit }));
      expectFailure(response, 'QUERY_TEMPLATE_INVALID_INPUT', /limit/);
    }
  });

  it.each([
    ['not an integer', 1.5],
    ['a numeric string', '10'],
    ['beyond 32 bits', 2 ** 31],
  ])('is refused by GraphQL when limit is %s', async (_, limit) => {
    const response = await run(idOf('sqlByHour'), input({ limit }));
    expectRefusedByGraphQL(response, /Int/);
  });

  it.each(['hourly', 'hour', 'MINUTE', 'PT1H', ''])('is refused by GraphQL when aggregationLevel is %j', async (aggregationLevel) => {
    const response = await run(idOf('sqlByHour'), input({ aggregationLevel }));
    expectRefusedByGraphQL(response, /AggregationLevel/);
  });

  it.each(['FIVE_MINUTE', 'TEN_MINUTE', 'FIFTEEN_MINUTE', 'THIRTY_MINUTE', 'HOUR', 'SIX_HOUR', 'EIGHT_HOUR', 'DAY', 'WEEK', 'MONTH', 'QUARTER', 'YEAR'])(
    'accepts aggregationLevel %s',
    async (aggregationLevel) => {
      expect(await runOk('sqlByLevel', { aggregationLevel })).toEqual(expect.any(Array));
    },
  );

  it('is refused by GraphQL naming a field the input does not know', async () => {
    const response = await run(idOf('sqlByHour'), { ...input(), granularity: 'hour' });
    expectRefusedByGraphQL(response, /granularity/);
  });
});

describe('runTemplate: templates the engine cannot run', () => {
  it.each([
    ['a javascript filter', 'javascriptFilter', /javascript/],
    ['a hyperUnique aggregator', 'hyperUnique', /hyperUnique/],
    ['postAggregations', 'postAggregations', /postAggregations/],
  ] as const)('fails with DATA_OUT_INVALID_INPUT naming %s', async (_, key, construct) => {
    const response = await run(idOf(key));
    expectFailure(response, 'DATA_OUT_INVALID_INPUT', construct);
  });

  it("fails with QUERY_TEMPLATE_INVALID_INPUT for a placeholder inside a quoted SQL string ('{{STARTDATE}} 00:00')", async () => {
    const response = await run(idOf('sqlPlaceholderInString'));
    expectFailure(response, 'QUERY_TEMPLATE_INVALID_INPUT', /\{\{STARTDATE\}\}.*quoted/);
  });
});

describe('runTemplate and the REST entry', () => {
  it('gives the same result as POST /v2/template/query/:id for the same template and values', async () => {
    const rest = await gw.http
      .post(`/v2/template/query/${idOf('groupBy')}`)
      .send(envelope('api.query.template.query', { startdate: DAY_START, enddate: DAY_END, dataset: SALES, aggregationLevel: 'hour' }));
    expect(rest.status).toBe(200);
    expect(await runOk('groupBy')).toStrictEqual(rest.body.result);
  });
});
