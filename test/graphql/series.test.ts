// Chart-ready series over GraphQL: metricSeries and Dataset.ingestionSeries read the shared metrics
// store the gateway samples (time injected: the test samples at the times it chooses), and give the
// numbers the Prometheus passthrough gives; the typed frames answer what their JSON twins answer.
import { beforeAll, describe, expect, it } from '@jest/globals';
import { errorCode, graphql } from '../support/api.js';
import { seedDataset } from '../support/datasets.js';
import { startTestGateway, useForFile } from '../support/gateway.js';
import { unique } from '../support/ingestion.js';
import { DAY_END, DAY_START, EVENTS, ingestEvents, RUN_DATASETS, runTemplateId, SALES_SCHEMA_OVERRIDES, seedRunTemplates, SQL_BY_HOUR_ROWS } from '../support/template-run.js';

const gwFor = useForFile(() => startTestGateway({ METRICS_SAMPLE_INTERVAL_SECONDS: '0' }));

const STEP = 15;
const iso = (ms: number) => new Date(ms).toISOString();
// A grid in the recent past: samples within the store's retention, on the 15 s grid the sampler uses.
const T0 = Math.floor(Date.now() / 60_000) * 60_000 - 10 * 60_000;
const dataset = unique('charted').replace(/-/g, '_');

const SERIES = `query($q: String!, $start: DateTime!, $end: DateTime!, $step: Int!) {
  metricSeries(query: $q, start: $start, end: $end, step: $step) { labels { name value } points { t v } }
}`;
const INGESTION = `query($id: ID!, $start: DateTime!, $end: DateTime!, $step: Int!) {
  dataset(id: $id) { ingestionSeries(start: $start, end: $end, step: $step) { t eventsIn processed failed duplicates } }
}`;

beforeAll(async () => {
  const gw = gwFor();
  const sample = (at: number) => gw.gateway.metricsSampler!.sample(at);
  await seedDataset(gw, dataset, 'Live', SALES_SCHEMA_OVERRIDES);
  await sample(T0);
  await ingestEvents(gw, dataset, EVENTS.slice(0, 3), unique('m'));
  await sample(T0 + STEP * 1000);
  await ingestEvents(gw, dataset, EVENTS.slice(3, 5), unique('m'));
  await sample(T0 + 2 * STEP * 1000);
  // A quiet step: nothing ingested between the third and fourth samplings.
  await sample(T0 + 3 * STEP * 1000);
});

const receivedQuery = () => `sum by (stage) (gateway_ingestion_events_total{dataset="${dataset}", stage="received"})`;

describe('metricSeries', () => {
  it('gives one point per step with the values the samples hold, null before the series existed', async () => {
    const response = await graphql(gwFor(), SERIES, { q: receivedQuery(), start: iso(T0 - STEP * 1000), end: iso(T0 + 3 * STEP * 1000), step: STEP });
    expect(response.errors).toBeUndefined();
    expect(response.data!.metricSeries).toEqual([
      {
        labels: [{ name: 'stage', value: 'received' }],
        points: [
          { t: iso(T0 - STEP * 1000), v: null },
          { t: iso(T0), v: 0 },
          { t: iso(T0 + STEP * 1000), v: 3 },
          { t: iso(T0 + 2 * STEP * 1000), v: 5 },
          { t: iso(T0 + 3 * STEP * 1000), v: 5 },
        ],
      },
    ]);
  });

  it('answers the numbers the Prometheus passthrough answers for the same query', async () => {
    const vars = { start: T0, end: T0 + 3 * STEP * 1000 };
    const typed = await graphql(gwFor(), SERIES, { q: `sum by (stage) (increase(gateway_ingestion_events_total{dataset="${dataset}"}[30s]))`, start: iso(vars.start), end: iso(vars.end), step: STEP });
    const raw = await graphql(gwFor(), 'query($p: JSON) { prometheus(path: "/api/v1/query_range", params: $p) }', {
      p: { query: `sum by (stage) (increase(gateway_ingestion_events_total{dataset="${dataset}"}[30s]))`, start: String(vars.start / 1000), end: String(vars.end / 1000), step: String(STEP) },
    });
    expect([typed.errors, raw.errors]).toEqual([undefined, undefined]);
    const fromPassthrough = (raw.data!.prometheus as { data: { result: { metric: Record<string, string>; values: [number, string][] }[] } }).data.result
      .map((series) => ({ stage: series.metric.stage, points: series.values.map(([t, v]) => [iso(t * 1000), Number(v)]) }))
      .sort((a, b) => a.stage!.localeCompare(b.stage!));
    const fromSeries = (typed.data!.metricSeries as { labels: { name: string; value: string }[]; points: { t: string; v: number | null }[] }[])
      .map((series) => ({ stage: series.labels.find((label) => label.name === 'stage')?.value, points: series.points.filter((p) => p.v !== null).map((p) => [p.t, p.v]) }))
      .sort((a, b) => a.stage!.localeCompare(b.stage!));
    expect(fromSeries.map((series) => series.stage)).toEqual(['duplicate', 'failed', 'processed', 'received']);
    expect(fromSeries).toEqual(fromPassthrough);
    // And the numbers are the ingest's: 3 then 2 events, their increase over 30 s windows (extrapolated as Prometheus does).
    expect(fromSeries.find((series) => series.stage === 'received')!.points.length).toBeGreaterThan(0);
  });

  it('takes the name of a metric alias and evaluates its expression', async () => {
    const gw = gwFor();
    const alias = unique('received-events');
    const created = await graphql(gw, 'mutation($i: CreateMetricAliasInput!) { createMetricAlias(input: $i) { metricAlias { id } } }', {
      i: { alias, component: 'ingestion', metric: receivedQuery() },
    });
    expect(created.errors).toBeUndefined();
    const byAlias = await graphql(gw, SERIES, { q: alias, start: iso(T0), end: iso(T0 + 2 * STEP * 1000), step: STEP });
    expect(byAlias.errors).toBeUndefined();
    expect(byAlias.data!.metricSeries).toEqual([{ labels: [{ name: 'stage', value: 'received' }], points: [0, 3, 5].map((v, i) => ({ t: iso(T0 + i * STEP * 1000), v })) }]);
  });

  it('puts the last point on the last whole step at or before end, and a single point when start equals end', async () => {
    const gw = gwFor();
    const ragged = await graphql(gw, SERIES, { q: receivedQuery(), start: iso(T0), end: iso(T0 + 2 * STEP * 1000 - 1), step: STEP });
    expect((ragged.data!.metricSeries as { points: { t: string }[] }[])[0]!.points.map((p) => p.t)).toEqual([iso(T0), iso(T0 + STEP * 1000)]);
    const single = await graphql(gw, SERIES, { q: receivedQuery(), start: iso(T0 + STEP * 1000), end: iso(T0 + STEP * 1000), step: STEP });
    expect(single.data!.metricSeries).toEqual([{ labels: [{ name: 'stage', value: 'received' }], points: [{ t: iso(T0 + STEP * 1000), v: 3 }] }]);
  });

  it('accepts 11,000 points per series and refuses 11,001 with DATA_METRICS_INVALID_INPUT', async () => {
    const gw = gwFor();
    const end = T0 + 2 * STEP * 1000;
    const most = await graphql(gw, SERIES, { q: receivedQuery(), start: iso(end - 10_999_000), end: iso(end), step: 1 });
    expect(most.errors).toBeUndefined();
    expect((most.data!.metricSeries as { points: unknown[] }[])[0]!.points).toHaveLength(11_000);
    const tooMany = await graphql(gw, SERIES, { q: receivedQuery(), start: iso(end - 11_000_000), end: iso(end), step: 1 });
    expect([tooMany.errors![0]!.extensions?.responseCode, errorCode(tooMany)]).toEqual(['BAD_REQUEST', 'DATA_METRICS_INVALID_INPUT']);
    expect(tooMany.errors![0]!.message).toMatch(/11001 points; at most 11000/);
  });

  it.each([
    ['a step of zero', { step: 0 }, /step: 0 is not a positive whole number/],
    ['a negative step', { step: -15 }, /step: -15 is not a positive/],
    ['an end before the start', { start: iso(T0 + 1000), end: iso(T0) }, /end .* is before start/],
    ['a query that does not parse', { q: 'sum(' }, /./],
    ['an empty query', { q: '  ' }, /query: a PromQL expression or the name of a metric alias is required/],
  ])('refuses %s with DATA_METRICS_INVALID_INPUT', async (_what, change, message) => {
    const response = await graphql(gwFor(), SERIES, { q: receivedQuery(), start: iso(T0), end: iso(T0 + STEP * 1000), step: STEP, ...change });
    expect([response.errors![0]!.extensions?.responseCode, errorCode(response)]).toEqual(['BAD_REQUEST', 'DATA_METRICS_INVALID_INPUT']);
    expect(response.errors![0]!.message).toMatch(message);
  });
});

const RELATIVE = `query($q: String!, $range: String, $last: Int, $start: DateTime, $end: DateTime, $step: Int!) {
  metricSeries(query: $q, range: $range, last: $last, start: $start, end: $end, step: $step) { points { t v } }
}`;

describe('metricSeries over a relative range', () => {
  it('takes range (ISO-8601) or last (seconds) alike: points on the step boundaries, the last at or before now', async () => {
    const gw = gwFor();
    const asked = Date.now();
    const [byRange, byLast] = await Promise.all([graphql(gw, RELATIVE, { q: receivedQuery(), range: 'PT15M', step: STEP }), graphql(gw, RELATIVE, { q: receivedQuery(), last: 900, step: STEP })]);
    const answered = Date.now();
    expect([byRange.errors, byLast.errors]).toEqual([undefined, undefined]);
    const times = (response: typeof byRange) => (response.data!.metricSeries as { points: { t: string }[] }[])[0]!.points.map((point) => Date.parse(point.t));
    // Unless a step boundary fell between the two calls, both have the same 61 points.
    if (Math.floor(asked / 15_000) === Math.floor(answered / 15_000)) expect(times(byRange)).toEqual(times(byLast));
    const points = times(byRange);
    expect(points).toHaveLength(61);
    expect(points.every((t) => t % (STEP * 1000) === 0)).toBe(true);
    expect(points.at(-1)!).toBeLessThanOrEqual(answered);
    expect(points.at(-1)!).toBeGreaterThan(asked - STEP * 1000);
    expect(points[0]).toBe(points.at(-1)! - 900_000);
    // The samples of the test's grid (10 minutes ago) are in the window: 0, then 3, then 5 received.
    const values = (byRange.data!.metricSeries as { points: { t: string; v: number | null }[] }[])[0]!.points.filter((point) => point.v !== null).map((point) => point.v);
    expect(values.slice(0, 3)).toEqual([0, 3, 5]);
  });

  it('puts every caller within the same step on the same points, whatever the range is not a multiple of', async () => {
    const response = await graphql(gwFor(), RELATIVE, { q: receivedQuery(), range: 'PT10M20S', step: 60 });
    expect(response.errors).toBeUndefined();
    const points = (response.data!.metricSeries as { points: { t: string }[] }[])[0]!.points.map((point) => Date.parse(point.t));
    expect(points).toHaveLength(11);
    expect(points.every((t) => t % 60_000 === 0)).toBe(true);
  });

  it.each([
    ['both start/end and range', { range: 'PT1H', start: iso(T0), end: iso(T0) }, /^range: give either start and end, or a relative range/],
    ['both start/end and last', { last: 60, start: iso(T0), end: iso(T0) }, /^last: give either start and end, or a relative range/],
    ['both range and last', { range: 'PT1H', last: 60 }, /^range and last: give one of them, not both/],
    ['no range at all', {}, /^start and end, range or last: give start and end, or range .*, or last/],
    ['start without end', { start: iso(T0) }, /^end: required with start/],
    ['end without start', { end: iso(T0) }, /^start: required with end/],
    ['a range that is not a duration', { range: '1h' }, /^range: "1h" is not an ISO-8601 duration such as PT1H/],
    ['a range in months', { range: 'P1M' }, /^range: "P1M" is not an ISO-8601 duration .*years and months have no fixed length/],
    ['an empty range', { range: 'PT0S' }, /^range: "PT0S" is an empty duration/],
    ['a last of zero', { last: 0 }, /^last: 0 is not a positive whole number of seconds/],
    ['a range of too many points', { range: 'P1D', step: 1 }, /^range at a step of 1 s has 86401 points; at most 11000/],
  ])('refuses %s with DATA_METRICS_INVALID_INPUT naming the argument', async (_what, change, message) => {
    const response = await graphql(gwFor(), RELATIVE, { q: receivedQuery(), step: STEP, ...change });
    expect([response.errors![0]!.extensions?.responseCode, errorCode(response)]).toEqual(['BAD_REQUEST', 'DATA_METRICS_INVALID_INPUT']);
    expect(response.errors![0]!.message).toMatch(message);
  });
});

describe('Dataset.ingestionSeries', () => {
  it('counts the events of each step: 3 in the first, 2 in the second, none in the quiet one', async () => {
    const response = await graphql(gwFor(), INGESTION, { id: dataset, start: iso(T0), end: iso(T0 + 3 * STEP * 1000), step: STEP });
    expect(response.errors).toBeUndefined();
    expect(response.data!.dataset.ingestionSeries).toEqual([
      { t: iso(T0), eventsIn: 0, processed: 0, failed: 0, duplicates: 0 },
      { t: iso(T0 + STEP * 1000), eventsIn: 3, processed: 3, failed: 0, duplicates: 0 },
      { t: iso(T0 + 2 * STEP * 1000), eventsIn: 2, processed: 2, failed: 0, duplicates: 0 },
      { t: iso(T0 + 3 * STEP * 1000), eventsIn: 0, processed: 0, failed: 0, duplicates: 0 },
    ]);
  });

  it('sums steps wider than the sampling: one 30 s step holds all 5 events', async () => {
    const response = await graphql(gwFor(), INGESTION, { id: dataset, start: iso(T0 + 2 * STEP * 1000), end: iso(T0 + 2 * STEP * 1000), step: 2 * STEP });
    expect(response.data!.dataset.ingestionSeries).toEqual([{ t: iso(T0 + 2 * STEP * 1000), eventsIn: 5, processed: 5, failed: 0, duplicates: 0 }]);
  });

  it('takes a relative range: the last 15 minutes hold the 5 events, on the step boundaries', async () => {
    const response = await graphql(gwFor(), `query($id: ID!) { dataset(id: $id) { ingestionSeries(range: "PT15M", step: ${STEP}) { t eventsIn } } }`, { id: dataset });
    expect(response.errors).toBeUndefined();
    const points = response.data!.dataset.ingestionSeries as { t: string; eventsIn: number }[];
    expect(points).toHaveLength(61);
    expect(points.every((point) => Date.parse(point.t) % (STEP * 1000) === 0)).toBe(true);
    expect(points.reduce((sum, point) => sum + point.eventsIn, 0)).toBe(5);
  });

  it('refuses start with last, naming last', async () => {
    const response = await graphql(gwFor(), `query($id: ID!) { dataset(id: $id) { ingestionSeries(start: "${iso(T0)}", end: "${iso(T0)}", last: 60, step: ${STEP}) { t } } }`, { id: dataset });
    expect(errorCode(response)).toBe('DATA_METRICS_INVALID_INPUT');
    expect(response.errors![0]!.message).toMatch(/^last: give either start and end/);
  });

  it('refuses a bad step with DATA_METRICS_INVALID_INPUT', async () => {
    const response = await graphql(gwFor(), INGESTION, { id: dataset, start: iso(T0), end: iso(T0), step: 0 });
    expect(errorCode(response)).toBe('DATA_METRICS_INVALID_INPUT');
  });
});

describe('typed frames', () => {
  beforeAll(async () => {
    const gw = gwFor();
    await seedDataset(gw, RUN_DATASETS.sales, 'Live', SALES_SCHEMA_OVERRIDES);
    await ingestEvents(gw, RUN_DATASETS.sales, EVENTS, 'frames-sales-1');
    await seedRunTemplates(gw, ['sqlByHour', 'timeseriesHour']);
  });

  it('runTemplateFrame gives the columns with their types and the rows runTemplate gives, in column order', async () => {
    const input = { startDate: DAY_START, endDate: DAY_END, dataset: RUN_DATASETS.sales };
    const response = await graphql(gwFor(), 'query($id: ID!, $i: RunTemplateInput!) { runTemplate(id: $id, input: $i) runTemplateFrame(id: $id, input: $i) { columns { name type } rows } }', {
      id: runTemplateId('sqlByHour'),
      i: input,
    });
    expect(response.errors).toBeUndefined();
    expect(response.data!.runTemplate).toEqual(SQL_BY_HOUR_ROWS);
    const names = Object.keys(SQL_BY_HOUR_ROWS[0]!);
    expect(response.data!.runTemplateFrame).toEqual({
      columns: names.map((name) => ({ name, type: name === '__time' ? 'TIMESTAMP' : 'NUMBER' })),
      rows: SQL_BY_HOUR_ROWS.map((row) => names.map((name) => row[name as keyof typeof row])),
    });
  });

  it('flattens a native query result object into dotted columns', async () => {
    const input = { startDate: DAY_START, endDate: DAY_END, dataset: RUN_DATASETS.sales };
    const response = await graphql(gwFor(), 'query($id: ID!, $i: RunTemplateInput!) { runTemplateFrame(id: $id, input: $i) { columns { name type } rows } }', {
      id: runTemplateId('timeseriesHour'),
      i: input,
    });
    expect(response.errors).toBeUndefined();
    const frame = response.data!.runTemplateFrame as { columns: { name: string; type: string }[]; rows: unknown[][] };
    expect(frame.columns[0]).toEqual({ name: 'timestamp', type: 'TIMESTAMP' });
    expect(frame.columns.find((column) => column.name === 'result.events')).toEqual({ name: 'result.events', type: 'NUMBER' });
    expect(frame.rows.map((row) => row[frame.columns.findIndex((column) => column.name === 'result.events')])).toEqual([3, 2, 1]);
  });

  it('sqlQueryFrame and queryDatasetFrame type text, numbers, booleans and all-null columns', async () => {
    const sql = `SELECT "id", "amount", "paid", NULL AS "nothing" FROM "${RUN_DATASETS.sales}" WHERE "id" IN ('e1', 'e2', 'e3') ORDER BY "id"`;
    const response = await graphql(
      gwFor(),
      'query($s: String!, $q: JSON!, $d: String!) { sqlQueryFrame(query: $s) { columns { name type } rows } queryDatasetFrame(dataset: $d, query: $q) { columns { name type } } }',
      {
        s: sql,
        d: RUN_DATASETS.sales,
        q: `SELECT "id" FROM {{DATASET}} WHERE "__time" >= '${DAY_START}' AND "__time" < '${DAY_END}' LIMIT 2`,
      },
    );
    expect(response.errors).toBeUndefined();
    expect(response.data!.sqlQueryFrame).toEqual({
      columns: [
        { name: 'id', type: 'STRING' },
        { name: 'amount', type: 'NUMBER' },
        { name: 'paid', type: 'BOOLEAN' },
        { name: 'nothing', type: 'JSON' },
      ],
      rows: [
        ['e1', 10.5, true, null],
        ['e2', 20, false, null],
        ['e3', null, null, null],
      ],
    });
    expect(response.data!.queryDatasetFrame.columns).toEqual([{ name: 'id', type: 'STRING' }]);
  });

  it('a frame fails as its JSON twin fails (an unknown template)', async () => {
    const response = await graphql(gwFor(), 'query { runTemplateFrame(id: "no_such_template", input: { startDate: "2026-03-02", endDate: "2026-03-03", dataset: "x" }) { rows } }');
    expect(errorCode(response)).toBe('QUERY_TEMPLATE_NOT_EXISTS');
  });
});
