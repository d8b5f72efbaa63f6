// The platform's processing telemetry (system-events) on the embedded defaults, read as the
// console's home, ingestion and processing charts read it: Druid native queries of the same types,
// dimensions, filters and aggregations (groupBy, timeseries at PT5M and topN, granularity in
// Asia/Kolkata, selector filters with error_code null) through POST /v2/data/metrics, and SQL through
// /v2/data/query, after a known ingest of good, duplicate and invalid events.
import { beforeAll, describe, expect, it } from '@jest/globals';
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

  it('refuses a dimension it does not have, and a ten-year window, naming them', async () => {
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
    const decade = await native({
      queryType: 'timeseries',
      granularity: 'all',
      intervals: '2016-01-01T00:00:00Z/2026-01-01T00:00:00Z',
      aggregations: [{ type: 'longSum', name: 'count', fieldName: 'count' }],
    });
    expect(decade.status).toBe(400);
    expect(decade.body.error).toMatchObject({ code: 'DATA_OUT_INVALID_DATE_RANGE' });
    const badZone = await native({ queryType: 'timeseries', granularity: { type: 'period', period: 'PT5M', timeZone: "x'; DROP" }, intervals: indianDay(), aggregations: [] });
    expect(badZone.status).toBe(400);
  });
});
