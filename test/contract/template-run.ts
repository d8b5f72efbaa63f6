// Running query templates (contract 2.3, 4.3, 7, 8; issue 6) on the embedded query engine, end to
// end and written once for both transports: Live datasets with events of known timestamps, SQL and
// JSON (Druid native) templates, and the exact rows and buckets they give (test/support/template-run.ts).
// Scenarios only read what beforeAll arranged, except those that arrange datasets of their own.
import { beforeAll, describe, expect, it } from '@jest/globals';
import { seedDataset, transition, type Json } from '../support/datasets.js';
import {
  DAY_END,
  DAY_START,
  FILTER_CASES,
  filteredTimeseries,
  GROUP_BY_HOUR_ITEMS,
  GROUP_BY_ITEMS,
  RUN_DATASETS,
  runTemplateId,
  SALES_COLUMNS,
  SALES_SCHEMA_OVERRIDES,
  SCAN_COLUMNS,
  SCAN_EVENTS,
  seedRunDatasets,
  seedRunTemplates,
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
  type RunTemplateKey,
} from '../support/template-run.js';
import { seedTemplate, templateIdFor } from '../support/templates.js';
import { expectFailure, expectOk, type Outcome, type SuiteContext } from './harness.js';

/** The values of a run, as the REST request spells them (aggregationLevel in lower case). */
export interface RunRequest {
  startdate?: string;
  enddate?: string;
  dataset?: string;
  aggregationLevel?: string;
  limit?: number;
}

export interface TemplateRunDriver {
  /** The rows (SQL) or items (JSON) a run gives. */
  run(templateId: string, request: RunRequest): Promise<Outcome<unknown[]>>;
}

export const AGGREGATION_LEVELS = ['five_minute', 'ten_minute', 'fifteen_minute', 'thirty_minute', 'hour', 'six_hour', 'eight_hour', 'day', 'week', 'month', 'quarter', 'year'];

const { sales: SALES, other: OTHER, draft: DRAFT, retired: RETIRED } = RUN_DATASETS;
const DAY_BUCKET = [{ timestamp: '2026-03-02T00:00:00.000Z', result: { events: 6 } }];

/** A run over the sales day, by hour; `over` replaces fields (undefined leaves one out). */
export function runRequest(over: RunRequest = {}): RunRequest {
  return { startdate: DAY_START, enddate: DAY_END, dataset: SALES, aggregationLevel: 'hour', ...over };
}

export function templateRunScenarios(ctx: SuiteContext<TemplateRunDriver>): void {
  const run = (key: RunTemplateKey, over: RunRequest = {}) => ctx.driver.run(runTemplateId(key), runRequest(over));
  const runOk = async (key: RunTemplateKey, over: RunRequest = {}) => {
    const result = expectOk(await run(key, over));
    expect(Array.isArray(result)).toBe(true);
    return result;
  };
  const BOTH_KINDS = ['sqlByHour', 'timeseriesHour'] as const;

  beforeAll(async () => {
    await seedRunDatasets(ctx.gw);
    await seedRunTemplates(ctx.gw);
  }, 60_000);

  describe('a sql template', () => {
    it('buckets by hour with TIME_FLOOR and gives COUNT, SUM, MIN, MAX and AVG per bucket, __time first, in order', async () => {
      expect(await runOk('sqlByHour')).toStrictEqual(SQL_BY_HOUR_ROWS);
    });

    it('keeps only events in [startdate, enddate): one second before the start and exactly at the end are left out', async () => {
      const rows = (await runOk('sqlRaw')) as Json[];
      expect(rows.map((row) => row.id)).toEqual(['e1', 'e2', 'e3', 'e4', 'e5', 'e6']);
    });

    it('gives every row __time and every data-schema field by name (nested ones dotted), with nulls kept', async () => {
      const rows = (await runOk('sqlRaw')) as Json[];
      expect(rows).toStrictEqual(SQL_RAW_ROWS);
      for (const row of rows) expect(Object.keys(row).sort()).toEqual(['__time', ...SALES_COLUMNS].sort());
    });

    it('filters on a field, groups by a nested field by its quoted dotted name and orders descending (a null group kept)', async () => {
      expect(await runOk('sqlByOs')).toStrictEqual(SQL_BY_OS_ROWS);
    });

    it('fills {{LIMIT}} with the limit asked for', async () => {
      expect(await runOk('sqlByHour', { limit: 2 })).toStrictEqual(SQL_BY_HOUR_ROWS.slice(0, 2));
      expect(await runOk('sqlByHour', { limit: 1 })).toStrictEqual(SQL_BY_HOUR_ROWS.slice(0, 1));
    });

    it('fills {{LIMIT}} with 5000 when no limit is given', async () => {
      expect(await runOk('sqlByHour', { limit: undefined })).toStrictEqual(SQL_BY_HOUR_ROWS);
      expect(await runOk('sqlByHour', { limit: 5000 })).toStrictEqual(SQL_BY_HOUR_ROWS);
    });

    it.each(Object.entries(SQL_BY_LEVEL_ROWS))('fills {{AGGREGATIONLEVEL}} with the period of aggregationLevel %s', async (level, expected) => {
      expect(await runOk('sqlByLevel', { aggregationLevel: level })).toStrictEqual(expected);
    });

    it("accepts the original's spellings: '{{STARTDATE}}' in quotes, TIMESTAMP '...', {{LIMITS}} and lower-case names", async () => {
      expect(await runOk('sqlOriginalForms', { limit: 4 })).toStrictEqual([{ id: 'e1' }, { id: 'e2' }, { id: 'e3' }, { id: 'e4' }]);
    });

    it('reads "YYYY-MM-DD HH:mm:ss" dates as UTC, as the original wrote them', async () => {
      expect(await runOk('sqlByHour', { startdate: '2026-03-02 10:00:00', enddate: '2026-03-02 11:00:00' })).toStrictEqual(SQL_BY_HOUR_ROWS.slice(0, 1));
    });

    it('reads ISO 8601 dates with an offset as the instant they name', async () => {
      // 15:30 at +05:30 is 10:00 UTC; 17:30 at +05:30 is 12:00 UTC.
      expect(await runOk('sqlByHour', { startdate: '2026-03-02T15:30:00+05:30', enddate: '2026-03-02T17:30:00+05:30' })).toStrictEqual(SQL_BY_HOUR_ROWS.slice(0, 2));
    });

    it('gives an empty array when no event falls in the range', async () => {
      expect(await runOk('sqlByHour', { startdate: '2026-02-01', enddate: '2026-02-02' })).toEqual([]);
    });

    it('never sees the events of another dataset (that dataset gives its own)', async () => {
      const rows = (await runOk('sqlRaw', { dataset: OTHER })) as Json[];
      expect(rows.map((row) => [row.id, row.amount])).toEqual([
        ['o1', 5000],
        ['o2', 6000],
      ]);
    });
  });

  describe('a json (Druid native) template', () => {
    it('answers a timeseries by hour with [{timestamp, result}] buckets of count, longSum, doubleSum, min and max', async () => {
      expect(await runOk('timeseriesHour')).toStrictEqual(TIMESERIES_HOUR_ITEMS);
    });

    it('answers a timeseries with granularity all with one bucket stamped with the start of the interval', async () => {
      expect(await runOk('timeseriesAll')).toStrictEqual(TIMESERIES_ALL_ITEMS);
    });

    it.each([
      ['as a period of {{AGGREGATIONLEVEL}}', 'timeseriesPeriod'],
      ['as "granularity": "{{AGGREGATIONLEVEL}}"', 'timeseriesLevel'],
    ] as const)('buckets a timeseries by the aggregationLevel when the template writes its granularity %s', async (_, key) => {
      expect(await runOk(key, { aggregationLevel: 'hour' })).toStrictEqual(TIMESERIES_COUNT_BY_HOUR);
      expect(await runOk(key, { aggregationLevel: 'day' })).toStrictEqual(DAY_BUCKET);
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

    it('fills "limit": {{LIMIT}} of a scan with the limit asked for', async () => {
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
      expect(await runOk('timeseriesHour', { startdate: '2026-02-01', enddate: '2026-02-02' })).toEqual([]);
    });

    describe('filters', () => {
      let index = 0;
      it.each(FILTER_CASES)('applies a %s filter', async (_, filter, expected) => {
        index += 1;
        const name = `Run Json Filter ${index}`;
        await seedTemplate(ctx.gw, name, 'json', filteredTimeseries(filter));
        expect(expectOk(await ctx.driver.run(templateIdFor(name), runRequest()))).toStrictEqual([{ timestamp: '2026-03-02T00:00:00.000Z', result: expected }]);
      });
    });
  });

  describe('the date range', () => {
    it('accepts a range of exactly 30 days', async () => {
      for (const key of BOTH_KINDS) expect(await runOk(key, { startdate: '2026-02-03T00:00:00Z', enddate: '2026-03-05T00:00:00Z' })).toEqual(expect.any(Array));
    });

    it.each(BOTH_KINDS)('refuses a range over 30 days with DATA_OUT_INVALID_DATE_RANGE (template %s)', async (key) => {
      expectFailure(await run(key, { startdate: '2026-02-03T00:00:00Z', enddate: '2026-03-05T00:00:01Z' }), 'DATA_OUT_INVALID_DATE_RANGE', /30 days/);
      expectFailure(await run(key, { startdate: '2025-03-02', enddate: '2026-03-02' }), 'DATA_OUT_INVALID_DATE_RANGE', /30 days/);
    });

    it.each(BOTH_KINDS)('refuses an end before the start with DATA_OUT_INVALID_DATE_RANGE (template %s)', async (key) => {
      expectFailure(await run(key, { startdate: DAY_END, enddate: DAY_START }), 'DATA_OUT_INVALID_DATE_RANGE', /enddate|range/i);
    });

    it('refuses a json template whose own intervals span over 30 days with DATA_OUT_INVALID_DATE_RANGE', async () => {
      expectFailure(await run('wideIntervals'), 'DATA_OUT_INVALID_DATE_RANGE', /30 days/);
    });

    it.each([
      ['a word', { startdate: 'yesterday' }],
      ['a month 13', { startdate: '2026-13-01' }],
      ['a day that is not on the calendar (30 February)', { startdate: '2026-02-30' }],
      ['an hour 25', { enddate: '2026-03-02T25:00:00Z' }],
      ['a date followed by text', { enddate: '2026-03-02 garbage' }],
      ['NaN', { startdate: 'NaN' }],
      ['a date with an SQL comment inside', { startdate: '2026-03-02 /* */ 00:00:00' }],
      ['a date with a NUL after it', { startdate: '2026-03-02\u0000' }],
    ])('refuses a date that cannot be parsed with QUERY_TEMPLATE_INVALID_INPUT: %s', async (_, over) => {
      for (const key of BOTH_KINDS) expectFailure(await run(key, over), 'QUERY_TEMPLATE_INVALID_INPUT', /date/);
    });
  });

  describe('datasets that cannot be queried', () => {
    it.each([
      ['does not exist', 'run_nowhere'],
      ['has only a Draft', DRAFT],
      ['is Retired', RETIRED],
    ])('answers DATA_OUT_SOURCE_NOT_FOUND naming a dataset that %s (sql and json templates)', async (_, dataset) => {
      for (const key of BOTH_KINDS) expectFailure(await run(key, { dataset }), 'DATA_OUT_SOURCE_NOT_FOUND', new RegExp(dataset));
    });

    it('answers DATA_OUT_SOURCE_NOT_FOUND for a dataset that was deleted', async () => {
      await seedDataset(ctx.gw, 'run_deleted', 'Live', SALES_SCHEMA_OVERRIDES);
      expect(await runOk('sqlByHour', { dataset: 'run_deleted' })).toEqual([]);
      await transition(ctx.gw, 'run_deleted', 'Delete');
      expectFailure(await run('sqlByHour', { dataset: 'run_deleted' }), 'DATA_OUT_SOURCE_NOT_FOUND', /run_deleted/);
    });

    it('stops answering once a Live dataset is retired', async () => {
      await seedDataset(ctx.gw, 'run_retire_later', 'Live', SALES_SCHEMA_OVERRIDES);
      expect(await runOk('timeseriesHour', { dataset: 'run_retire_later' })).toEqual([]);
      await transition(ctx.gw, 'run_retire_later', 'Retired');
      expectFailure(await run('timeseriesHour', { dataset: 'run_retire_later' }), 'DATA_OUT_SOURCE_NOT_FOUND', /run_retire_later/);
    });

    it('answers DATA_OUT_SOURCE_NOT_FOUND for a Live dataset whose datasource is missing', async () => {
      await seedDataset(ctx.gw, 'run_no_view', 'Live', SALES_SCHEMA_OVERRIDES);
      await ctx.gw.sql('DROP VIEW datasources."run_no_view"');
      for (const key of BOTH_KINDS) expectFailure(await run(key, { dataset: 'run_no_view' }), 'DATA_OUT_SOURCE_NOT_FOUND', /run_no_view/);
    });

    it('still answers for a Live dataset that has a Draft of its next version', async () => {
      await seedDataset(ctx.gw, 'run_live_with_draft', 'LiveWithDraft', SALES_SCHEMA_OVERRIDES);
      expect(await runOk('sqlByHour', { dataset: 'run_live_with_draft' })).toEqual([]);
    });
  });

  describe('the values of a run', () => {
    it('answers QUERY_TEMPLATE_NOT_EXISTS naming a template that does not exist', async () => {
      expectFailure(await ctx.driver.run('run_no_such_template', runRequest()), 'QUERY_TEMPLATE_NOT_EXISTS', /run_no_such_template/);
    });

    it.each([
      ['0', 0],
      ['above 5000', 5001],
      ['negative', -1],
    ])('refuses a limit that is %s with QUERY_TEMPLATE_INVALID_INPUT (sql and json templates)', async (_, limit) => {
      for (const key of ['sqlByHour', 'scan'] as const) expectFailure(await run(key, { limit }), 'QUERY_TEMPLATE_INVALID_INPUT', /limit/);
    });

    // Rules of the service (issue 34), no longer of REST's schema: one message on both transports.
    it('refuses an empty dataset and one longer than a dataset id may be (200 characters) with QUERY_TEMPLATE_INVALID_INPUT, saying so', async () => {
      expectFailure(await run('sqlByHour', { dataset: '' }), 'QUERY_TEMPLATE_INVALID_INPUT', /^dataset must not be empty$/);
      expectFailure(await run('sqlByHour', { dataset: 'd'.repeat(201) }), 'QUERY_TEMPLATE_INVALID_INPUT', /^dataset is 201 characters long; at most 200 are allowed$/);
    });

    it('refuses an empty startdate with QUERY_TEMPLATE_INVALID_INPUT, naming it', async () => {
      expectFailure(await run('sqlByHour', { startdate: '' }), 'QUERY_TEMPLATE_INVALID_INPUT', /^startdate "" is not a date/);
    });

    it('refuses a template id longer than any template has (120 characters) with QUERY_TEMPLATE_INVALID_INPUT, not as missing', async () => {
      expectFailure(await ctx.driver.run('t'.repeat(121), runRequest()), 'QUERY_TEMPLATE_INVALID_INPUT', /^template_id is 121 characters long; at most 120 are allowed$/);
    });

    it.each(AGGREGATION_LEVELS)('accepts aggregationLevel %s', async (aggregationLevel) => {
      expect(await runOk('sqlByLevel', { aggregationLevel })).toEqual(expect.any(Array));
    });
  });

  describe('templates the engine cannot run', () => {
    it.each([
      ['a javascript filter', 'javascriptFilter', /javascript/],
      ['a hyperUnique aggregator', 'hyperUnique', /hyperUnique/],
      ['a javascript post-aggregator', 'postAggregations', /post-aggregator type "javascript" \(postAggregations\[0\]\)/],
    ] as const)('refuses %s with DATA_OUT_INVALID_INPUT naming it', async (_, key, construct) => {
      expectFailure(await run(key), 'DATA_OUT_INVALID_INPUT', construct);
    });

    it('refuses SQL nested past the stack depth PostgreSQL allows (SQLSTATE 54001) with 400 DATA_OUT_INVALID_INPUT, not a server fault', async () => {
      expectFailure(await run('sqlPastStackDepth'), 'DATA_OUT_INVALID_INPUT', /more than the engine allows: stack depth limit exceeded/);
    });

    it('refuses SQL whose result holds JSON nested 10,000 levels deep with 400 DATA_OUT_INVALID_INPUT, not a server fault', async () => {
      expectFailure(await run('sqlDeepJsonResult'), 'DATA_OUT_INVALID_INPUT', /nested deeper than 1000 levels/);
    });

    it('refuses a native query nested 3,000 filters deep with 400 QUERY_TEMPLATE_INVALID_INPUT, not a server fault', async () => {
      expectFailure(await run('deepFilter'), 'QUERY_TEMPLATE_INVALID_INPUT', /nests deeper than 100 levels/);
    });

    it("refuses a placeholder inside a quoted SQL string ('{{STARTDATE}} 00:00') with QUERY_TEMPLATE_INVALID_INPUT", async () => {
      expectFailure(await run('sqlPlaceholderInString'), 'QUERY_TEMPLATE_INVALID_INPUT', /\{\{STARTDATE\}\}.*quoted/);
    });
  });
}
