// Fixtures for running query templates (issue 6; contract 2.3, 4.3, 7, 8), shared by the REST and
// GraphQL end-to-end suites so both transports check the very same rows and buckets, and the
// helpers that arrange them in one line each (through the REST API, as a user would).
//
// The "sales" dataset has a nested field (device.os) and an integer field (qty); six events fall
// on 2026-03-02 between 10:05 and 12:30 UTC, three more fall just outside that day. Every expected
// value below was worked out by hand from EVENTS (not by running the code).
import { envelope } from './api.js';
import { seedDataset, type Json } from './datasets.js';
import type { TestGateway } from './gateway.js';
import { seedTemplate, templateIdFor } from './templates.js';

/** Extra data-schema fields of the sales dataset (merged into `definition()`'s schema). */
export const SALES_SCHEMA_OVERRIDES: Json = {
  data_schema: {
    properties: {
      qty: { type: 'integer', arrival_format: 'number', data_type: 'integer' },
      paid: { type: 'boolean', arrival_format: 'boolean', data_type: 'boolean' },
      device: {
        type: 'object',
        arrival_format: 'object',
        data_type: 'object',
        properties: { os: { type: 'string', arrival_format: 'text', data_type: 'string' } },
      },
    },
  },
};

/** The columns a sales datasource exposes, besides `__time`. */
export const SALES_COLUMNS = ['id', 'ts', 'userid', 'amount', 'qty', 'paid', 'device.os'];

export const DAY_START = '2026-03-02T00:00:00Z';
export const DAY_END = '2026-03-03T00:00:00Z';

export const EVENTS: Json[] = [
  { id: 'e1', ts: '2026-03-02T10:05:00Z', userid: 'u1', amount: 10.5, qty: 1, paid: true, device: { os: 'android' } },
  { id: 'e2', ts: '2026-03-02T10:20:00Z', userid: 'u2', amount: 20, qty: 2, paid: false, device: { os: 'ios' } },
  // No amount: a null in every row and aggregate that reads it.
  { id: 'e3', ts: '2026-03-02T10:40:00Z', userid: 'u1', qty: 3, device: { os: 'android' } },
  { id: 'e4', ts: '2026-03-02T11:10:00Z', userid: 'u3', amount: 5.25, qty: 4, device: { os: 'android' } },
  { id: 'e5', ts: '2026-03-02T11:50:00Z', userid: 'u2', amount: 40, qty: 5, device: { os: 'ios' } },
  // No device: device.os is null.
  { id: 'e6', ts: '2026-03-02T12:30:00Z', userid: 'u1', amount: 1, qty: 6 },
  // Outside [DAY_START, DAY_END): one second before, exactly at the end, and three days later.
  { id: 'e7', ts: '2026-03-01T23:59:59Z', userid: 'u4', amount: 700, qty: 70, device: { os: 'android' } },
  { id: 'e8', ts: '2026-03-03T00:00:00Z', userid: 'u4', amount: 800, qty: 80, device: { os: 'ios' } },
  { id: 'e9', ts: '2026-03-05T00:00:00Z', userid: 'u4', amount: 900, qty: 90, device: { os: 'android' } },
];

/** Events of another Live dataset in the same hours: a run over the sales dataset must never see them. */
export const OTHER_EVENTS: Json[] = [
  { id: 'o1', ts: '2026-03-02T10:30:00Z', userid: 'u1', amount: 5000 },
  { id: 'o2', ts: '2026-03-02T11:30:00Z', userid: 'u9', amount: 6000 },
];

// ---------------------------------------------------------------------------------------------
// SQL templates (Druid SQL subset), each with the rows it gives over [DAY_START, DAY_END).

export const SQL = {
  /** TIME_FLOOR by hour, COUNT/SUM/MIN/MAX/AVG, GROUP BY, ORDER BY, LIMIT, WHERE on __time. */
  byHour: `SELECT TIME_FLOOR("__time", 'PT1H') AS "__time", COUNT(*) AS "events", SUM("amount") AS "total",
       MIN("amount") AS "smallest", MAX("amount") AS "largest", AVG("qty") AS "avg_qty", SUM("qty") AS "qty"
  FROM {{DATASET}}
 WHERE "__time" >= {{STARTDATE}} AND "__time" < {{ENDDATE}}
 GROUP BY 1 ORDER BY 1 LIMIT {{LIMIT}}`,
  /** A WHERE on a field, a nested field by its dotted name, quoted identifiers, ORDER BY ... DESC. */
  byOs: `SELECT "device.os" AS "os", COUNT(*) AS "events", SUM("qty") AS "qty", MAX("__time") AS "__time"
  FROM {{DATASET}}
 WHERE "__time" >= {{STARTDATE}} AND "__time" < {{ENDDATE}} AND "userid" <> 'u3'
 GROUP BY "device.os" ORDER BY "events" DESC, "os" ASC LIMIT {{LIMIT}}`,
  /** Every column of every event, oldest first. */
  raw: 'SELECT * FROM {{DATASET}} WHERE "__time" >= {{STARTDATE}} AND "__time" < {{ENDDATE}} ORDER BY "__time" LIMIT {{LIMIT}}',
  /** The bucket comes from the request's aggregationLevel. */
  byLevel: `SELECT TIME_FLOOR("__time", {{AGGREGATIONLEVEL}}) AS "__time", COUNT(*) AS "events"
  FROM {{DATASET}} WHERE "__time" >= {{STARTDATE}} AND "__time" < {{ENDDATE}} GROUP BY 1 ORDER BY 1`,
  /** The original's spellings: quoted dates, a TIMESTAMP keyword, {{LIMITS}}, lower-case names. */
  originalForms: `SELECT "id" FROM {{dataset}} WHERE "__time" >= TIMESTAMP '{{STARTDATE}}' AND "__time" < '{{EndDate}}' ORDER BY "__time" LIMIT {{LIMITS}}`,
  /** A placeholder inside a longer quoted string cannot be a bound parameter: refused. */
  placeholderInString: `SELECT * FROM {{DATASET}} WHERE "__time" >= '{{STARTDATE}} 00:00' AND "__time" < {{ENDDATE}}`,
  /** 20,000 additions nest deeper than PostgreSQL's parser may recurse: it refuses with SQLSTATE 54001 (stack depth limit exceeded). */
  pastStackDepth: `SELECT 1${' + 1'.repeat(20_000)} AS n FROM {{DATASET}} WHERE "__time" >= {{STARTDATE}} AND "__time" < {{ENDDATE}}`,
  /** A JSON value 10,000 arrays deep in each row: PostgreSQL holds it, JSON.stringify could not write it. */
  deepJsonResult: `SELECT '${'['.repeat(10_000)}${']'.repeat(10_000)}'::jsonb AS deep FROM {{DATASET}} WHERE "__time" >= {{STARTDATE}} AND "__time" < {{ENDDATE}}`,
} as const;

export const SQL_BY_HOUR_ROWS = [
  { __time: '2026-03-02T10:00:00.000Z', events: 3, total: 30.5, smallest: 10.5, largest: 20, avg_qty: 2, qty: 6 },
  { __time: '2026-03-02T11:00:00.000Z', events: 2, total: 45.25, smallest: 5.25, largest: 40, avg_qty: 4.5, qty: 9 },
  { __time: '2026-03-02T12:00:00.000Z', events: 1, total: 1, smallest: 1, largest: 1, avg_qty: 6, qty: 6 },
];

export const SQL_BY_OS_ROWS = [
  { os: 'android', events: 2, qty: 4, __time: '2026-03-02T10:40:00.000Z' },
  { os: 'ios', events: 2, qty: 7, __time: '2026-03-02T11:50:00.000Z' },
  { os: null, events: 1, qty: 6, __time: '2026-03-02T12:30:00.000Z' },
];

/** SELECT * rows: `__time` plus every data-schema field, nulls kept. */
export const SQL_RAW_ROWS = [
  { __time: '2026-03-02T10:05:00.000Z', id: 'e1', ts: '2026-03-02T10:05:00Z', userid: 'u1', amount: 10.5, qty: 1, paid: true, 'device.os': 'android' },
  { __time: '2026-03-02T10:20:00.000Z', id: 'e2', ts: '2026-03-02T10:20:00Z', userid: 'u2', amount: 20, qty: 2, paid: false, 'device.os': 'ios' },
  { __time: '2026-03-02T10:40:00.000Z', id: 'e3', ts: '2026-03-02T10:40:00Z', userid: 'u1', amount: null, qty: 3, paid: null, 'device.os': 'android' },
  { __time: '2026-03-02T11:10:00.000Z', id: 'e4', ts: '2026-03-02T11:10:00Z', userid: 'u3', amount: 5.25, qty: 4, paid: null, 'device.os': 'android' },
  { __time: '2026-03-02T11:50:00.000Z', id: 'e5', ts: '2026-03-02T11:50:00Z', userid: 'u2', amount: 40, qty: 5, paid: null, 'device.os': 'ios' },
  { __time: '2026-03-02T12:30:00.000Z', id: 'e6', ts: '2026-03-02T12:30:00Z', userid: 'u1', amount: 1, qty: 6, paid: null, 'device.os': null },
];

/** SQL.byLevel rows for some aggregation levels. */
export const SQL_BY_LEVEL_ROWS: Record<string, { __time: string; events: number }[]> = {
  hour: [
    { __time: '2026-03-02T10:00:00.000Z', events: 3 },
    { __time: '2026-03-02T11:00:00.000Z', events: 2 },
    { __time: '2026-03-02T12:00:00.000Z', events: 1 },
  ],
  thirty_minute: [
    { __time: '2026-03-02T10:00:00.000Z', events: 2 },
    { __time: '2026-03-02T10:30:00.000Z', events: 1 },
    { __time: '2026-03-02T11:00:00.000Z', events: 1 },
    { __time: '2026-03-02T11:30:00.000Z', events: 1 },
    { __time: '2026-03-02T12:30:00.000Z', events: 1 },
  ],
  day: [{ __time: '2026-03-02T00:00:00.000Z', events: 6 }],
};

// ---------------------------------------------------------------------------------------------
// JSON (Druid native) templates, each with the items it gives over [DAY_START, DAY_END).

const SUMS = [
  { type: 'count', name: 'events' },
  { type: 'longSum', name: 'qty', fieldName: 'qty' },
  { type: 'doubleSum', name: 'total', fieldName: 'amount' },
  { type: 'doubleMin', name: 'smallest', fieldName: 'amount' },
  { type: 'doubleMax', name: 'largest', fieldName: 'amount' },
  { type: 'longMin', name: 'min_qty', fieldName: 'qty' },
  { type: 'longMax', name: 'max_qty', fieldName: 'qty' },
];
const INTERVALS = ['{{STARTDATE}}/{{ENDDATE}}'];

export function nativeQuery(query: Json): string {
  return JSON.stringify({ dataSource: '{{DATASET}}', intervals: INTERVALS, ...query });
}

/** A timeseries over the whole range (granularity all) with count and qty, filtered by `filter`. */
export function filteredTimeseries(filter: Json): string {
  return nativeQuery({
    queryType: 'timeseries',
    granularity: 'all',
    filter,
    aggregations: [
      { type: 'count', name: 'events' },
      { type: 'longSum', name: 'qty', fieldName: 'qty' },
    ],
  });
}

export const JSON_TEMPLATES = {
  timeseriesHour: nativeQuery({ queryType: 'timeseries', granularity: 'hour', aggregations: SUMS }),
  timeseriesAll: nativeQuery({ queryType: 'timeseries', granularity: 'all', aggregations: SUMS }),
  /** The bucket comes from the request's aggregationLevel, written as Druid's period granularity. */
  timeseriesPeriod: nativeQuery({ queryType: 'timeseries', granularity: { type: 'period', period: '{{AGGREGATIONLEVEL}}' }, aggregations: [SUMS[0]] }),
  /** The bucket comes from the request's aggregationLevel, the way the original set it (granularity = aggregationLevel). */
  timeseriesLevel: nativeQuery({ queryType: 'timeseries', granularity: '{{AGGREGATIONLEVEL}}', aggregations: [SUMS[0]] }),
  groupBy: nativeQuery({
    queryType: 'groupBy',
    granularity: 'all',
    dimensions: ['userid', { type: 'default', dimension: 'device.os', outputName: 'os' }],
    aggregations: [SUMS[0], SUMS[1]],
    limitSpec: {
      type: 'default',
      limit: 3,
      columns: [
        { dimension: 'qty', direction: 'descending' },
        { dimension: 'userid', direction: 'ascending' },
      ],
    },
  }),
  groupByHour: nativeQuery({ queryType: 'groupBy', granularity: 'hour', dimensions: ['device.os'], aggregations: [SUMS[0], SUMS[1]] }),
  topN: nativeQuery({
    queryType: 'topN',
    granularity: 'all',
    dimension: 'userid',
    metric: 'qty',
    threshold: 2,
    aggregations: [SUMS[1], SUMS[0]],
  }),
  topNHour: nativeQuery({
    queryType: 'topN',
    granularity: 'hour',
    dimension: 'userid',
    metric: { type: 'numeric', metric: 'qty' },
    threshold: 1,
    aggregations: [SUMS[1]],
  }),
  // `"limit": {{LIMIT}}` stands where a number goes; it is filled with the request's limit.
  scan: `{"queryType":"scan","dataSource":"{{DATASET}}","intervals":["{{STARTDATE}}/{{ENDDATE}}"],"columns":["__time","id","amount","device.os"],"order":"ascending","limit":{{LIMIT}}}`,
  timeBoundary: nativeQuery({ queryType: 'timeBoundary' }),
  timeBoundaryFiltered: nativeQuery({ queryType: 'timeBoundary', filter: { type: 'selector', dimension: 'userid', value: 'u2' } }),
  /** Its own intervals span 61 days; the run's dates only reach its context. */
  wideIntervals: nativeQuery({
    queryType: 'timeseries',
    intervals: ['2026-01-01T00:00:00Z/2026-03-03T00:00:00Z'],
    granularity: 'all',
    aggregations: [SUMS[0]],
    context: { from: '{{STARTDATE}}', to: '{{ENDDATE}}' },
  }),
  javascriptFilter: filteredTimeseries({ type: 'javascript', dimension: 'userid', function: 'function(x) { return true; }' }),
  /** A filter 3,000 NOTs deep (written as text: building it as an object would recurse in the test too). */
  deepFilter: filteredTimeseries({ type: 'selector', dimension: 'os', value: 'x' }).replace(
    /"filter":(\{[^}]*\})/,
    (_, inner: string) => `"filter":${'{"type":"not","field":'.repeat(3000)}${inner}${'}'.repeat(3000)}`,
  ),
  hyperUnique: nativeQuery({ queryType: 'timeseries', granularity: 'all', aggregations: [{ type: 'hyperUnique', name: 'users', fieldName: 'userid' }] }),
  postAggregations: nativeQuery({
    queryType: 'timeseries',
    granularity: 'all',
    aggregations: [SUMS[0]],
    // arithmetic, expression and fieldAccess post-aggregators run; a JavaScript one never does.
    postAggregations: [{ type: 'javascript', name: 'double', fieldNames: ['events'], function: 'function(events) { return events * 2; }' }],
  }),
} as const;

const HOUR_10 = '2026-03-02T10:00:00.000Z';
const HOUR_11 = '2026-03-02T11:00:00.000Z';
const HOUR_12 = '2026-03-02T12:00:00.000Z';
const DAY = '2026-03-02T00:00:00.000Z';

export const TIMESERIES_HOUR_ITEMS = [
  { timestamp: HOUR_10, result: { events: 3, qty: 6, total: 30.5, smallest: 10.5, largest: 20, min_qty: 1, max_qty: 3 } },
  { timestamp: HOUR_11, result: { events: 2, qty: 9, total: 45.25, smallest: 5.25, largest: 40, min_qty: 4, max_qty: 5 } },
  { timestamp: HOUR_12, result: { events: 1, qty: 6, total: 1, smallest: 1, largest: 1, min_qty: 6, max_qty: 6 } },
];

/** Granularity all: one bucket, stamped with the start of the interval. */
export const TIMESERIES_ALL_ITEMS = [{ timestamp: DAY, result: { events: 6, qty: 21, total: 76.75, smallest: 1, largest: 40, min_qty: 1, max_qty: 6 } }];

export const TIMESERIES_COUNT_BY_HOUR = [
  { timestamp: HOUR_10, result: { events: 3 } },
  { timestamp: HOUR_11, result: { events: 2 } },
  { timestamp: HOUR_12, result: { events: 1 } },
];

/** Sorted by qty descending, then userid; the limit keeps three of the four groups. */
export const GROUP_BY_ITEMS = [
  { timestamp: DAY, result: { userid: 'u2', os: 'ios', events: 2, qty: 7 } },
  { timestamp: DAY, result: { userid: 'u1', os: null, events: 1, qty: 6 } },
  { timestamp: DAY, result: { userid: 'u1', os: 'android', events: 2, qty: 4 } },
];

/** Druid orders groupBy rows by time, then by the dimensions, ascending. */
export const GROUP_BY_HOUR_ITEMS = [
  { timestamp: HOUR_10, result: { 'device.os': 'android', events: 2, qty: 4 } },
  { timestamp: HOUR_10, result: { 'device.os': 'ios', events: 1, qty: 2 } },
  { timestamp: HOUR_11, result: { 'device.os': 'android', events: 1, qty: 4 } },
  { timestamp: HOUR_11, result: { 'device.os': 'ios', events: 1, qty: 5 } },
  { timestamp: HOUR_12, result: { 'device.os': null, events: 1, qty: 6 } },
];

export const TOP_N_ITEMS = [
  {
    timestamp: DAY,
    result: [
      { userid: 'u1', qty: 10, events: 3 },
      { userid: 'u2', qty: 7, events: 2 },
    ],
  },
];

export const TOP_N_HOUR_ITEMS = [
  { timestamp: HOUR_10, result: [{ userid: 'u1', qty: 4 }] },
  { timestamp: HOUR_11, result: [{ userid: 'u2', qty: 5 }] },
  { timestamp: HOUR_12, result: [{ userid: 'u1', qty: 6 }] },
];

export const SCAN_COLUMNS = ['__time', 'id', 'amount', 'device.os'];
export const SCAN_EVENTS = [
  { __time: '2026-03-02T10:05:00.000Z', id: 'e1', amount: 10.5, 'device.os': 'android' },
  { __time: '2026-03-02T10:20:00.000Z', id: 'e2', amount: 20, 'device.os': 'ios' },
  { __time: '2026-03-02T10:40:00.000Z', id: 'e3', amount: null, 'device.os': 'android' },
  { __time: '2026-03-02T11:10:00.000Z', id: 'e4', amount: 5.25, 'device.os': 'android' },
  { __time: '2026-03-02T11:50:00.000Z', id: 'e5', amount: 40, 'device.os': 'ios' },
  { __time: '2026-03-02T12:30:00.000Z', id: 'e6', amount: 1, 'device.os': null },
];

export const TIME_BOUNDARY_ITEMS = [{ timestamp: '2026-03-02T10:05:00.000Z', result: { minTime: '2026-03-02T10:05:00.000Z', maxTime: '2026-03-02T12:30:00.000Z' } }];
export const TIME_BOUNDARY_FILTERED_ITEMS = [{ timestamp: '2026-03-02T10:20:00.000Z', result: { minTime: '2026-03-02T10:20:00.000Z', maxTime: '2026-03-02T11:50:00.000Z' } }];

/** Filters (timeseries, granularity all) and the {events, qty} of the events they keep. */
export const FILTER_CASES: [string, Json, { events: number; qty: number }][] = [
  ['selector on a nested field', { type: 'selector', dimension: 'device.os', value: 'android' }, { events: 3, qty: 8 }],
  ['selector with a null value (missing fields)', { type: 'selector', dimension: 'device.os', value: null }, { events: 1, qty: 6 }],
  ['in', { type: 'in', dimension: 'userid', values: ['u1', 'u3'] }, { events: 4, qty: 14 }],
  ['numeric bound, both ends inclusive', { type: 'bound', dimension: 'qty', lower: '2', upper: '4', ordering: 'numeric' }, { events: 3, qty: 9 }],
  ['numeric bound with a strict lower end (nulls never match)', { type: 'bound', dimension: 'amount', lower: '10.5', lowerStrict: true, ordering: 'numeric' }, { events: 2, qty: 7 }],
  ['lexicographic bound', { type: 'bound', dimension: 'userid', lower: 'u2' }, { events: 3, qty: 11 }],
  [
    'and',
    {
      type: 'and',
      fields: [
        { type: 'selector', dimension: 'device.os', value: 'ios' },
        { type: 'bound', dimension: 'qty', upper: '2', ordering: 'numeric' },
      ],
    },
    { events: 1, qty: 2 },
  ],
  [
    'or',
    {
      type: 'or',
      fields: [
        { type: 'selector', dimension: 'userid', value: 'u3' },
        { type: 'selector', dimension: 'device.os', value: 'ios' },
      ],
    },
    { events: 3, qty: 11 },
  ],
  ['not', { type: 'not', field: { type: 'in', dimension: 'userid', values: ['u1', 'u2'] } }, { events: 1, qty: 4 }],
];

// ---------------------------------------------------------------------------------------------
// Arranging a run: the datasets with their events, and the templates above under names of their own.

/** The datasets of the run suites: sales and other are Live with their events. */
export const RUN_DATASETS = { sales: 'run_sales', other: 'run_other', draft: 'run_draft', retired: 'run_retired' } as const;

/** Ingests events into a Live dataset; throws when the gateway refuses them. */
export async function ingestEvents(gw: TestGateway, datasetId: string, data: Json[], msgid: string): Promise<void> {
  const response = await gw.http.post(`/v2/data/in/${encodeURIComponent(datasetId)}`).send({ ...envelope('api.data.in', undefined, msgid), data });
  if (response.status !== 200) throw new Error(`ingest into ${datasetId} failed with ${response.status}: ${JSON.stringify(response.body)}`);
}

/** Live sales (EVENTS) and other (OTHER_EVENTS), a Draft-only and a Retired dataset. */
export async function seedRunDatasets(gw: TestGateway): Promise<void> {
  const { sales, other, draft, retired } = RUN_DATASETS;
  await Promise.all([seedDataset(gw, sales, 'Live', SALES_SCHEMA_OVERRIDES), seedDataset(gw, other, 'Live'), seedDataset(gw, draft, 'Draft'), seedDataset(gw, retired, 'Retired')]);
  await ingestEvents(gw, sales, EVENTS, 'run-sales-1');
  await ingestEvents(gw, other, OTHER_EVENTS, 'run-other-1');
}

/** The templates of the run suites: a name each (the id derives from it), a type and a query. */
export const RUN_TEMPLATES = {
  sqlByHour: { name: 'Run Sql By Hour', type: 'sql', query: SQL.byHour },
  sqlByOs: { name: 'Run Sql By Os', type: 'sql', query: SQL.byOs },
  sqlRaw: { name: 'Run Sql Raw', type: 'sql', query: SQL.raw },
  sqlByLevel: { name: 'Run Sql By Level', type: 'sql', query: SQL.byLevel },
  sqlOriginalForms: { name: 'Run Sql Original Forms', type: 'sql', query: SQL.originalForms },
  sqlPlaceholderInString: { name: 'Run Sql Placeholder In String', type: 'sql', query: SQL.placeholderInString },
  sqlPastStackDepth: { name: 'Run Sql Past Stack Depth', type: 'sql', query: SQL.pastStackDepth },
  sqlDeepJsonResult: { name: 'Run Sql Deep Json Result', type: 'sql', query: SQL.deepJsonResult },
  timeseriesHour: { name: 'Run Json Timeseries Hour', type: 'json', query: JSON_TEMPLATES.timeseriesHour },
  timeseriesAll: { name: 'Run Json Timeseries All', type: 'json', query: JSON_TEMPLATES.timeseriesAll },
  timeseriesPeriod: { name: 'Run Json Timeseries Period', type: 'json', query: JSON_TEMPLATES.timeseriesPeriod },
  timeseriesLevel: { name: 'Run Json Timeseries Level', type: 'json', query: JSON_TEMPLATES.timeseriesLevel },
  groupBy: { name: 'Run Json Group By', type: 'json', query: JSON_TEMPLATES.groupBy },
  groupByHour: { name: 'Run Json Group By Hour', type: 'json', query: JSON_TEMPLATES.groupByHour },
  topN: { name: 'Run Json Top N', type: 'json', query: JSON_TEMPLATES.topN },
  topNHour: { name: 'Run Json Top N Hour', type: 'json', query: JSON_TEMPLATES.topNHour },
  scan: { name: 'Run Json Scan', type: 'json', query: JSON_TEMPLATES.scan },
  timeBoundary: { name: 'Run Json Time Boundary', type: 'json', query: JSON_TEMPLATES.timeBoundary },
  timeBoundaryFiltered: { name: 'Run Json Time Boundary Filtered', type: 'json', query: JSON_TEMPLATES.timeBoundaryFiltered },
  wideIntervals: { name: 'Run Json Wide Intervals', type: 'json', query: JSON_TEMPLATES.wideIntervals },
  javascriptFilter: { name: 'Run Json Javascript Filter', type: 'json', query: JSON_TEMPLATES.javascriptFilter },
  deepFilter: { name: 'Run Json Deep Filter', type: 'json', query: JSON_TEMPLATES.deepFilter },
  hyperUnique: { name: 'Run Json Hyper Unique', type: 'json', query: JSON_TEMPLATES.hyperUnique },
  postAggregations: { name: 'Run Json Post Aggregations', type: 'json', query: JSON_TEMPLATES.postAggregations },
} as const;
export type RunTemplateKey = keyof typeof RUN_TEMPLATES;

export function runTemplateId(key: RunTemplateKey): string {
  return templateIdFor(RUN_TEMPLATES[key].name);
}

/** Creates the run templates named by `keys` (all of them by default). */
export async function seedRunTemplates(gw: TestGateway, keys = Object.keys(RUN_TEMPLATES) as RunTemplateKey[]): Promise<void> {
  for (const key of keys) await seedTemplate(gw, RUN_TEMPLATES[key].name, RUN_TEMPLATES[key].type, RUN_TEMPLATES[key].query);
}
