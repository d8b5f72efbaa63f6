// The platform's processing telemetry (system-events) on the embedded defaults, read as the
// console's home, ingestion and processing charts read it: Druid native queries of the same types,
// dimensions, filters and aggregations (groupBy, timeseries at PT5M and topN, granularity in
// Asia/Kolkata, selector filters with error_code null) through POST /v2/data/metrics, and SQL through
// /v2/data/query, after a known ingest of good, duplicate and invalid events.
import { beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { createLogger } from '../../src/logger.js';
import { SystemEventsRecorder } from '../../src/modules/ingestion/system-events.js';
import { envelope } from '../support/api.js';
import { seedDataset, type Json } from '../support/datasets.js';
import { startTestGateway, useForFile } from '../support/gateway.js';

const gw = useForFile(() => startTestGateway());
const DATASET = 'sysev_orders';
const OTHER = 'sysev_clicks';

/** Today in India, as the console writes its window ("YYYY-MM-DDT00:00:00+05:30" to the next day). */
function indianDay(): string {
  const local = new Date(Date.now() + 5.5 * 3_600_000);
  const day = local.toISOString().slice(0, 10);
  const next = new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  return `${day}T00:00:00+05:30/${next}T00:00:00+05:30`;
}

const selector = (dimension: string, value: string | null) => ({ type: 'selector', dimension, value });
const processed = (datasetType: string) => ({
  type: 'and',
  fields: [selector('ctx_module', 'processing'), selector('ctx_pdata_pid', 'router'), selector('ctx_dataset_type', datasetType), selector('error_code', null)],
});

/**
 * A native query as the console posts it to /v2/data/metrics (its url names the chart's route); the
 * answer's status, its body, and Druid's rows, which the console reads from the envelope's `result`.
 */
async function native(query: Json, url = '/config/v2/data/metrics/dataset'): Promise<{ status: number; body: any; rows: any }> {
  const response = await gw()
    .http.post('/v2/data/metrics')
    .query({ id: 'chart' })
    .send({
      query: {
        id: 'chart',
        type: 'api',
        url,
        method: 'POST',
        headers: {},
        noParams: true,
        body: { context: { dataSource: 'system-events' }, query: { dataSource: 'system-events', ...query } },
        params: {},
      },
    });
  return { status: response.status, body: response.body, rows: response.body.result };
}

/** What the console's parse does with an answer: lodash's sumBy over a dotted path. */
const sumOf = (rows: Json[], path: string) => rows.reduce((sum, row) => sum + ((path.split('.').reduce<any>((value, key) => value?.[key], row) as number | undefined) ?? 0), 0);

const event = (id: string, amount: unknown = 1) => ({ id, ts: '2026-03-01T10:00:00Z', userid: 'u1', amount });

beforeAll(async () => {
  await seedDataset(gw(), DATASET, 'Live');
  await seedDataset(gw(), OTHER, 'Live');
  const ingest = async (dataset: string, events: Json[]) => {
    const response = await gw()
      .http.post(`/v2/data/in/${dataset}`)
      .send({ ...envelope('api.data.in'), data: events });
    expect(response.status).toBe(200);
  };
  // 5 good events; a1 again in the same request and a2 again later (2 duplicates); 3 whose amount
  // is not a number (the dataset's Strict schema refuses them).
  await ingest(DATASET, [event('a1'), event('a2'), event('a3'), event('a1'), event('x1', 'ten')]);
  await ingest(DATASET, [event('a2'), event('a4'), event('a5'), event('x2', 'eleven'), event('x3', 'twelve')]);
  await ingest(OTHER, [event('c1'), event('c2')]);
});

describe('system-events on the embedded defaults', () => {
  it("counts the day's processed events as the home page does (groupBy, granularity all in Asia/Kolkata)", async () => {
    const { status, body, rows } = await native({
      queryType: 'groupBy',
      granularity: { type: 'all', timeZone: 'Asia/Kolkata' },
      intervals: [indianDay()],
      aggregations: [{ type: 'longSum', name: 'count', fieldName: 'count' }],
      filter: processed('event'),
    });
    expect(status).toBe(200);
    expect(body).toMatchObject({ id: 'api.data.metrics', params: { status: 'SUCCESS' }, responseCode: 'OK' });
    // Druid's groupBy rows; the home page sums event.count over them.
    expect(rows).toEqual([{ version: 'v1', timestamp: expect.any(String), event: { count: 7 } }]);
    expect(sumOf(rows, 'event.count')).toBe(7);
    // No master dataset ingested anything: the master figure is empty, not an error.
    expect(
      (
        await native(
          {
            queryType: 'groupBy',
            granularity: { type: 'all', timeZone: 'Asia/Kolkata' },
            intervals: [indianDay()],
            aggregations: [{ type: 'longSum', name: 'count', fieldName: 'count' }],
            filter: processed('master'),
          },
          '/config/v2/data/metrics/masterDataset',
        )
      ).rows,
    ).toEqual([]);
  });

  it('counts every stage and error code of a dataset, one row each', async () => {
    const { rows } = await native({
      queryType: 'groupBy',
      granularity: { type: 'all', timeZone: 'Asia/Kolkata' },
      intervals: indianDay(),
      dimensions: ['ctx_pdata_pid', 'error_code'],
      aggregations: [{ type: 'longSum', name: 'count', fieldName: 'count' }],
      filter: { type: 'and', fields: [selector('ctx_module', 'processing'), selector('ctx_dataset', DATASET)] },
    });
    const counts = Object.fromEntries((rows as { event: Json }[]).map(({ event }) => [`${event.ctx_pdata_pid as string}/${(event.error_code as string | null) ?? '-'}`, event.count]));
    expect(counts).toEqual({
      'extractor/-': 10,
      'validator/-': 7,
      'validator/VALIDATION_FAILED': 3,
      'dedup/-': 5,
      'dedup/DUPLICATE_EVENT': 2,
      'denorm/-': 5,
      'transformer/-': 5,
      'router/-': 5,
    });
  });

  it("charts processed events in five-minute buckets of India's time, and ranks datasets (timeseries, topN)", async () => {
    const series = await native({
      queryType: 'timeseries',
      intervals: indianDay(),
      granularity: { type: 'period', period: 'PT5M', timeZone: 'Asia/Kolkata' },
      aggregations: [{ type: 'longSum', name: 'count', fieldName: 'count' }],
      filter: { type: 'and', fields: [selector('ctx_module', 'processing'), selector('ctx_dataset', DATASET), selector('ctx_pdata_pid', 'router'), selector('error_code', null)] },
    });
    expect(series.status).toBe(200);
    const buckets = series.rows as { timestamp: string; result: { count: number } }[];
    expect(buckets.reduce((sum, bucket) => sum + bucket.result.count, 0)).toBe(5);
    for (const bucket of buckets) expect(Date.parse(bucket.timestamp) % 300_000).toBe(0);
    // A day in India starts at 18:30 UTC the day before.
    const days = await native({
      queryType: 'timeseries',
      intervals: indianDay(),
      granularity: { type: 'period', period: 'P1D', timeZone: 'Asia/Kolkata' },
      aggregations: [{ type: 'longSum', name: 'count', fieldName: 'count' }],
      filter: processed('event'),
    });
    expect(days.rows).toEqual([{ timestamp: `${indianDay().slice(0, 10)}T00:00:00+05:30`, result: { count: 7 } }].map((day) => ({ ...day, timestamp: new Date(day.timestamp).toISOString() })));

    const top = await native({
      queryType: 'topN',
      intervals: [indianDay()],
      granularity: { type: 'all', timeZone: 'Asia/Kolkata' },
      dimension: { type: 'default', dimension: 'dataset', outputName: 'dataset', outputType: 'STRING' },
      metric: { type: 'numeric', metric: 'count' },
      threshold: 100,
      aggregations: [
        { type: 'longSum', name: 'count', fieldName: 'count' },
        { type: 'longSum', name: 'total_processing_time', fieldName: 'total_processing_time' },
      ],
      filter: processed('event'),
    });
    expect(top.status).toBe(200);
    expect((top.rows as { result: Json[] }[])[0]!.result).toEqual([
      { dataset: DATASET, count: 5, total_processing_time: expect.any(Number) },
      { dataset: OTHER, count: 2, total_processing_time: expect.any(Number) },
    ]);
  });

  describe("the processing charts' times (virtualColumns and postAggregations, as the console sends them)", () => {
    // Master datasets' telemetry with known times, written as the pipeline writes it (no master
    // dataset ingests in this file): per row, time/count is 2 and 7 for m1, 10 for m2 (31/3 as
    // LONGs), 0 for m3 (no events: case_searched keeps it from dividing by zero).
    const hour = 3_600_000;
    const t1 = Math.floor(Date.now() / 60_000) * 60_000 - 2 * hour;
    const t2 = t1 - hour;
    const window = `${new Date(Date.now() - 24 * hour).toISOString()}/${new Date(Date.now() + 24 * hour).toISOString()}`;
    const perRow = { type: 'expression', name: 'v0', expression: 'case_searched((count > 0),(total_processing_time/count),0', outputType: 'DOUBLE' };
    const master = processed('master');

    beforeAll(async () => {
      const rows: [number, string, string, string, number, number][] = [
        [t1, 'sysev_m1', 'router', '', 4, 10],
        [t2, 'sysev_m1', 'router', '', 2, 14],
        [t1, 'sysev_m1', 'router', 'MISSING_DATA_KEY', 5, 0],
        [t1, 'sysev_m1', 'validator', '', 6, 12],
        [t1, 'sysev_m2', 'router', '', 3, 31],
        [t1, 'sysev_m3', 'router', '', 0, 0],
      ];
      for (const [minute, dataset, stage, code, count, time] of rows) {
        await gw().sql(`INSERT INTO system_events (minute, ctx_dataset, ctx_pdata_pid, error_code, ctx_dataset_type, count, total_processing_time) VALUES ($1, $2, $3, $4, 'master', $5, $6)`, [
          new Date(minute),
          dataset,
          stage,
          code,
          count,
          time,
        ]);
      }
    });

    const topN = (kind: 'doubleMin' | 'doubleMax', name: string) => ({
      queryType: 'topN',
      virtualColumns: [perRow],
      threshold: 100,
      dimension: { type: 'default', dimension: 'dataset', outputName: 'dataset', outputType: 'STRING' },
      metric: { type: 'numeric', metric: name },
      intervals: window,
      granularity: { type: 'all', timeZone: 'Asia/Kolkata' },
      aggregations: [{ type: kind, name, fieldName: 'v0' }],
      filter: master,
    });

    it('ranks datasets by their least and greatest time per row (topN over a virtual column; the console reads result[0].result[0])', async () => {
      const least = await native(topN('doubleMin', 'min_processing_time'));
      expect(least.status).toBe(200);
      expect(least.rows).toEqual([
        {
          timestamp: expect.any(String),
          result: [
            { dataset: 'sysev_m2', min_processing_time: 10 },
            { dataset: 'sysev_m1', min_processing_time: 2 },
            { dataset: 'sysev_m3', min_processing_time: 0 },
          ],
        },
      ]);
      const greatest = await native(topN('doubleMax', 'max_processing_time'));
      expect((greatest.rows as { result: Json[] }[])[0]!.result).toEqual([
        { dataset: 'sysev_m2', max_processing_time: 10 },
        { dataset: 'sysev_m1', max_processing_time: 7 },
        { dataset: 'sysev_m3', max_processing_time: 0 },
      ]);
    });

    it('averages the time per event as a LONG (groupBy with an expression post-aggregation, read from event)', async () => {
      const average = (filter: Json) =>
        native({
          queryType: 'groupBy',
          intervals: window,
          granularity: { type: 'all', timeZone: 'Asia/Kolkata' },
          aggregations: [
            { type: 'longSum', name: 'total_processing_time', fieldName: 'total_processing_time' },
            { type: 'longSum', name: 'count', fieldName: 'count' },
          ],
          postAggregations: [{ type: 'expression', name: 'average_processing_time', expression: 'case_searched((count > 0),(total_processing_time/count),0' }],
          filter,
        });
      const { status, rows } = await average(master);
      expect(status).toBe(200);
      // 55 ms over 9 events: 6 as Druid divides LONGs.
      expect(rows).toEqual([{ version: 'v1', timestamp: expect.any(String), event: { total_processing_time: 55, count: 9, average_processing_time: 6 } }]);
      expect(sumOf(rows, 'event.average_processing_time')).toBe(6);
      // The ingested events' own times: whatever they took, the average is their sum over their count.
      const events = (await average(processed('event'))).rows as { event: { total_processing_time: number; count: number; average_processing_time: number } }[];
      expect(events[0]!.event.count).toBe(7);
      expect(events[0]!.event.average_processing_time).toBe(Math.trunc(events[0]!.event.total_processing_time / 7));
    });

    it('charts least, greatest and average time in five-minute buckets (timeseries with both)', async () => {
      const { status, rows } = await native({
        queryType: 'timeseries',
        virtualColumns: [perRow],
        intervals: window,
        granularity: { type: 'period', period: 'PT5M', timeZone: 'Asia/Kolkata' },
        aggregations: [
          { type: 'doubleMin', name: 'min_processing_time', fieldName: 'v0' },
          { type: 'doubleMax', name: 'max_processing_time', fieldName: 'v0' },
          { type: 'doubleSum', name: 'a2', fieldName: 'total_processing_time' },
          { type: 'longSum', name: 'a3', fieldName: 'count' },
        ],
        postAggregations: [{ type: 'expression', name: 'avg_processing_time', expression: 'case_searched((a3 > 0),(a2/a3),0', outputType: 'DOUBLE' }],
        filter: master,
      });
      expect(status).toBe(200);
      expect(rows).toEqual([
        { timestamp: new Date(t2 - (t2 % 300_000)).toISOString(), result: { min_processing_time: 7, max_processing_time: 7, a2: 14, a3: 2, avg_processing_time: 7 } },
        { timestamp: new Date(t1 - (t1 % 300_000)).toISOString(), result: { min_processing_time: 0, max_processing_time: 10, a2: 41, a3: 7, avg_processing_time: 41 / 7 } },
      ]);
    });

    it('refuses a post-aggregator or virtual column it does not support, naming it', async () => {
      const sketch = await native({ ...topN('doubleMin', 'least'), postAggregations: [{ type: 'thetaSketchEstimate', name: 'users', field: { type: 'fieldAccess', fieldName: 'least' } }] });
      expect(sketch.status).toBe(400);
      expect(sketch.body.error).toMatchObject({ code: 'DATA_OUT_INVALID_INPUT', message: expect.stringMatching(/post-aggregator type "thetaSketchEstimate"/) });
      const lookup = await native({ ...topN('doubleMin', 'least'), virtualColumns: [{ ...perRow, expression: "lookup(dataset, 'names')" }] });
      expect(lookup.status).toBe(400);
      expect(lookup.body.error.message).toMatch(/virtualColumns\[0\] v0: .*function lookup\(\)/);
    });
  });

  it('answers SQL over the same rows through /v2/data/query/system-events', async () => {
    const response = await gw()
      .http.post('/v2/data/query/system-events')
      .send({
        ...envelope('api.data.out'),
        query: `SELECT ctx_pdata_pid, error_code, SUM("count") AS events FROM "system-events" WHERE ctx_dataset = '${DATASET}' AND __time > NOW() - INTERVAL '1 day' AND error_code IS NOT NULL GROUP BY 1, 2 ORDER BY 1`,
      });
    expect(response.status).toBe(200);
    expect(response.body.result).toEqual([
      { ctx_pdata_pid: 'dedup', error_code: 'DUPLICATE_EVENT', events: 2 },
      { ctx_pdata_pid: 'validator', error_code: 'VALIDATION_FAILED', events: 3 },
    ]);
  });

  it('refuses a dimension it does not have, and a bad time zone, naming them', async () => {
    const unknown = await native({
      queryType: 'groupBy',
      granularity: 'all',
      intervals: indianDay(),
      dimensions: ['ctx_unknown'],
      aggregations: [{ type: 'longSum', name: 'count', fieldName: 'count' }],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.params).toMatchObject({ status: 'FAILED' });
    expect(unknown.body.error).toMatchObject({ code: 'DATA_OUT_INVALID_INPUT', message: expect.stringMatching(/ctx_unknown/) });
    const badZone = await native({ queryType: 'timeseries', granularity: { type: 'period', period: 'PT5M', timeZone: "x'; DROP" }, intervals: indianDay(), aggregations: [] });
    expect(badZone.status).toBe(400);
  });

  it.each<[string, Json, string, RegExp]>([
    ['a filter on a dimension it does not have', { queryType: 'timeseries', filter: selector('ctx_nope', 'x') }, 'DATA_OUT_INVALID_INPUT', /ctx_nope/],
    ['a topN over a dimension it does not have', { queryType: 'topN', dimension: 'ctx_nope', metric: 'count', threshold: 5 }, 'DATA_OUT_INVALID_INPUT', /ctx_nope/],
    [
      'a virtual column over a column it does not have',
      { queryType: 'timeseries', virtualColumns: [{ type: 'expression', name: 'v0', expression: 'ctx_nope * 2' }] },
      'DATA_OUT_INVALID_INPUT',
      /ctx_nope/,
    ],
    ['no interval', { queryType: 'groupBy', intervals: [] }, 'DATA_OUT_INVALID_INPUT', /interval/],
    ['an open-ended interval', { queryType: 'groupBy', intervals: ['2016-01-01T00:00:00Z/'] }, 'DATA_OUT_INVALID_INPUT', /interval/],
  ])('refuses %s, before reading any row', async (_, query, code, message) => {
    const { status, body } = await native({ granularity: 'all', intervals: indianDay(), aggregations: [{ type: 'longSum', name: 'count', fieldName: 'count' }], ...query });
    expect({ status, code: body.error?.code }).toEqual({ status: 400, code });
    expect(body.error.message).toMatch(message);
  });

  it("reads a window since 2000 (the console's dataset list asks so) from the start of the retention, where the kept rows begin", async () => {
    const { status, rows } = await native({
      queryType: 'timeseries',
      intervals: `2000-01-01/${indianDay().split('/')[1]!}`,
      granularity: { type: 'all', timeZone: 'Asia/Kolkata' },
      aggregations: [{ type: 'longSum', name: 'count', fieldName: 'count' }],
      filter: { type: 'and', fields: [selector('ctx_module', 'processing'), selector('ctx_dataset', DATASET), selector('ctx_pdata_pid', 'router'), selector('error_code', null)] },
    });
    expect(status).toBe(200);
    expect(rows).toEqual([{ timestamp: expect.any(String), result: { count: 5 } }]);
    // Stamped with the window's start as read: seven days back (METRICS_RETENTION_DAYS' default).
    expect(Date.now() - Date.parse((rows as { timestamp: string }[])[0]!.timestamp)).toBeGreaterThanOrEqual(7 * 86_400_000 - 60_000);
  });

  it("answers the dataset card's last synced time over 2000-01-01/<tomorrow> (groupBy, longMax of __time), as milliseconds the console can date", async () => {
    const tomorrow = indianDay().split('/')[1]!;
    // druidQueries.last_synced_time as the console's DatasetMetricsCard sends it.
    const lastSynced = (dataset: string) =>
      native({
        queryType: 'groupBy',
        intervals: `2000-01-01/${tomorrow}`,
        granularity: { type: 'all', timeZone: 'Asia/Kolkata' },
        filter: { type: 'and', fields: [selector('ctx_module', 'processing'), selector('ctx_dataset', dataset), selector('ctx_pdata_pid', 'router')] },
        aggregations: [{ type: 'longMax', name: 'last_synced_time', fieldName: '__time' }],
      });
    const { status, body, rows } = await lastSynced(DATASET);
    expect({ status, error: body.error }).toEqual({ status: 200, error: undefined });
    // The console reads result[0].event.last_synced_time and shows dayjs(ms).fromNow(): within the last minutes.
    const ms = (rows as { event: { last_synced_time: unknown } }[])[0]!.event.last_synced_time;
    expect(typeof ms).toBe('number');
    expect(Date.now() - (ms as number)).toBeGreaterThanOrEqual(0);
    expect(Date.now() - (ms as number)).toBeLessThan(10 * 60_000);
    // A dataset that never synced: nothing to date, which the console shows as N/A.
    const never = await lastSynced('sysev_never');
    expect(never.status).toBe(200);
    expect((never.rows as { event?: { last_synced_time?: unknown } }[])[0]?.event?.last_synced_time ?? 0).toBeFalsy();
  });

  it("holds a dashboard's native query to the engine's bounds, not a 30-day window: a ten-year timeseries answers on /v2/data/metrics", async () => {
    const decade = await native({
      queryType: 'timeseries',
      granularity: 'all',
      intervals: '2016-01-01T00:00:00Z/2036-01-01T00:00:00Z',
      aggregations: [{ type: 'longSum', name: 'count', fieldName: 'count' }],
      filter: { type: 'and', fields: [selector('ctx_module', 'processing'), selector('ctx_dataset', DATASET), selector('ctx_pdata_pid', 'router'), selector('error_code', null)] },
    });
    expect({ status: decade.status, code: decade.body.error?.code }).toEqual({ status: 200, code: undefined });
    expect(decade.rows).toEqual([{ timestamp: expect.any(String), result: { count: 5 } }]);
  });

  it('refuses a ten-year native query on /v2/data/query/system-events (the ad-hoc route keeps its 30 days)', async () => {
    const response = await gw()
      .http.post('/v2/data/query/system-events')
      .send({
        ...envelope('api.data.out'),
        query: { queryType: 'timeseries', granularity: 'all', intervals: '2016-01-01T00:00:00Z/2026-01-01T00:00:00Z', aggregations: [{ type: 'longSum', name: 'count', fieldName: 'count' }] },
      });
    expect({ status: response.status, code: response.body.error?.code }).toEqual({ status: 400, code: 'DATA_OUT_INVALID_DATE_RANGE' });
  });

  it('keeps rows for the metrics retention: the recorder deletes older ones as it writes, every ten minutes', async () => {
    const day = 86_400_000;
    let now = Date.now();
    const pool = new pg.Pool({ connectionString: gw().databaseUrl, max: 1 });
    // A recorder of its own, on this file's database, with a clock the test moves (7 days: METRICS_RETENTION_DAYS' default).
    const recorder = new SystemEventsRecorder(pool, { retentionMs: 7 * day, logger: createLogger('silent'), now: () => now });
    const insert = (ageMs: number, dataset: string) =>
      gw().sql(`INSERT INTO system_events (minute, ctx_dataset, ctx_pdata_pid, ctx_dataset_type, count, total_processing_time) VALUES ($1, $2, 'router', 'event', 1, 1)`, [
        new Date(Math.floor((now - ageMs) / 60_000) * 60_000),
        dataset,
      ]);
    const kept = async () =>
      (await gw().sql<{ ctx_dataset: string }>(`SELECT DISTINCT ctx_dataset FROM system_events WHERE ctx_dataset LIKE 'sysev_age%' ORDER BY 1`)).rows.map((row) => row.ctx_dataset);
    try {
      await insert(8 * day, 'sysev_age_8d');
      await insert(6 * day, 'sysev_age_6d');
      await insert(7 * day - 2 * 60_000, 'sysev_age_7d');
      recorder.record({ datasetId: 'sysev_age_now', type: 'event' }, { accepted: 1, refusedBy: {} }, 3);
      await recorder.flush();
      expect(await kept()).toEqual(['sysev_age_6d', 'sysev_age_7d', 'sysev_age_now']);
      // What is left is what a dashboard over those days reads.
      const older = await native({
        queryType: 'groupBy',
        granularity: 'all',
        intervals: `${new Date(now - 9 * day).toISOString()}/${new Date(now - 5 * day).toISOString()}`,
        dimensions: ['dataset'],
        aggregations: [{ type: 'longSum', name: 'count', fieldName: 'count' }],
        filter: { type: 'in', dimension: 'dataset', values: ['sysev_age_8d', 'sysev_age_7d', 'sysev_age_6d'] },
      });
      expect((older.rows as { event: Json }[]).map((row) => row.event)).toEqual([
        { dataset: 'sysev_age_6d', count: 1 },
        { dataset: 'sysev_age_7d', count: 1 },
      ]);
      // Five minutes on, the 7-day-old row is past retention but the next pass is not due; ten minutes on, it is gone.
      now += 5 * 60_000;
      await recorder.flush();
      expect(await kept()).toEqual(['sysev_age_6d', 'sysev_age_7d', 'sysev_age_now']);
      now += 5 * 60_000;
      await recorder.flush();
      expect(await kept()).toEqual(['sysev_age_6d', 'sysev_age_now']);
    } finally {
      await recorder.stop();
      await pool.end();
    }
  });
});
