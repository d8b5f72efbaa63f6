// What the console's dashboards read (the original's POST /v2/data/metrics and the Druid coordinator
// listing), written once for both transports, on the embedded metrics store: the gateway samples
// its own metrics every second here, and Prometheus's read API answers from those samples.
import { beforeAll, describe, expect, it } from '@jest/globals';
import { seedDataset, type Json } from '../support/datasets.js';
import { expectFailure, expectOk, type Outcome, type SuiteContext } from './harness.js';

/** Prometheus's JSON body (`data` as its API answers). */
export interface PromBody {
  status: string;
  data: Json;
}

export interface DashboardMetricsDriver {
  /** One of Prometheus's read endpoints (path without /prom) with its parameters (an object of them, or anything else to see it refused). */
  prometheus(path: string, params: unknown): Promise<Outcome<PromBody>>;
  /** A Druid native query (an object, or anything else to see it refused). */
  native(query: unknown): Promise<Outcome<Json[]>>;
  /** Datasource names and sizes in bytes. */
  datasources(): Promise<Outcome<{ name: string; bytes: number }[]>>;
  ingest(datasetId: string, events: Json[]): Promise<void>;
}

/** The sampling interval the suite's gateways run with. */
export const SAMPLE_SECONDS = 1;

type VectorSample = { metric: Record<string, string>; value: [number, string] };

/** Calls `read` until `done` accepts its answer (at most 5 s); the last answer. */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const event = (id: string, day: string) => ({ id, ts: `2026-03-${day}T10:00:00Z`, userid: 'u1', amount: 1 });

export function dashboardMetricsScenarios(ctx: SuiteContext<DashboardMetricsDriver>): void {
  const big = `dash-big-${ctx.transport}`;
  const small = `dash-small-${ctx.transport}`;
  const vector = async (query: string, time?: number): Promise<VectorSample[]> => {
    const body = expectOk(await ctx.driver.prometheus('/api/v1/query', { query, ...(time === undefined ? {} : { time: String(time) }) }));
    expect(body.status).toBe('success');
    expect((body.data as { resultType: string }).resultType).toBe('vector');
    return (body.data as { result: VectorSample[] }).result;
  };
  /** Waits until a sampling after the ingests has been written (the counters show both datasets). */
  const sampled = async (): Promise<void> => {
    const deadline = Date.now() + 10_000;
    for (;;) {
      // The events are counted while the ingest runs, its API call once its answer is written: a
      // sampling between the two has the one and not the other, so both are waited for.
      const seen = await vector(`sum by (dataset) (gateway_ingestion_events_total{stage="received", dataset=~"${big}|${small}"})`);
      const calls = await vector(`sum by (dataset_id) (node_total_api_calls{entity="data-in", dataset_id=~"${big}|${small}"})`);
      if (seen.length === 2 && calls.length === 2) return;
      if (Date.now() > deadline) throw new Error(`the ingests were not sampled within 10 s: ${JSON.stringify({ seen, calls })}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };

  beforeAll(async () => {
    await seedDataset(ctx.gw, big, 'Live');
    await seedDataset(ctx.gw, small, 'Live');
    await ctx.driver.ingest(big, [event('b1', '01'), event('b2', '01'), event('b3', '02'), event('b4', '02'), event('b5', '03')]);
    await ctx.driver.ingest(big, [event('b6', '03'), event('b7', '04')]);
    await ctx.driver.ingest(small, [event('s1', '02'), event('s2', '02'), event('s3', '03')]);
    await sampled();
  });

  describe("Prometheus's read API on the embedded store", () => {
    it('counts the ingested events per dataset: sum by (dataset) (increase(...[5m])) at the last sampling', async () => {
      const [last] = await vector(`max(timestamp(gateway_ingestion_events_total{stage="received", dataset="${small}"}))`);
      const at = Number(last!.value[1]);
      const counts = await vector(`sum by (dataset) (increase(gateway_ingestion_events_total{stage="received", dataset=~"${big}|${small}"}[5m]))`, at);
      expect(Object.fromEntries(counts.map((sample) => [sample.metric.dataset, Number(sample.value[1])]))).toEqual({ [big]: 7, [small]: 3 });
      expect(counts[0]!.value[0]).toBe(at);
    });

    it("answers the console's API dashboard query: data-in calls by endpoint over 5 minutes", async () => {
      const [last] = await vector(`max(timestamp(node_total_api_calls{entity="data-in", dataset_id="${small}"}))`);
      const calls = await vector(`sum by (exported_endpoint) (increase(node_total_api_calls{entity="data-in", dataset_id=~"${big}|${small}"}[5m]))`, Number(last!.value[1]));
      expect(calls).toEqual([{ metric: { exported_endpoint: '/v2/data/in/:dataset_id' }, value: [Number(last!.value[1]), '3'] }]);
      // And the response time the console shows, in milliseconds: its subquery evaluates at whole
      // steps, so it sees the samples once one falls on or before a step.
      const slowest = await eventually(
        () => vector('max_over_time(max by (job) (node_query_response_time{entity="data-in"})[10m:1s])'),
        (result) => result.length > 0,
      );
      expect(slowest.map((sample) => sample.metric)).toEqual([{ job: 'gateway' }]);
      expect(Number(slowest[0]!.value[1])).toBeGreaterThan(0);
    });

    it('takes parameters written in the url as well as in params', async () => {
      const body = expectOk(await ctx.driver.prometheus(`/api/v1/query?query=${encodeURIComponent(`sum(gateway_ingestion_events_total{dataset="${small}", stage="received"})`)}`, {}));
      expect((body.data as { result: VectorSample[] }).result.map((sample) => sample.value[1])).toEqual(['3']);
      // Given twice, a single-valued parameter is refused rather than one of them picked.
      expectFailure(await ctx.driver.prometheus('/api/v1/query?query=up', { query: 'gateway_info' }), 'DATA_METRICS_INVALID_INPUT', /query is given 2 times/);
    });

    // The service's rules (issue 34; REST's schema held the url to 300 characters and params to an
    // object): one message on both transports, and a url as long as GraphQL's path may be.
    it('takes a url of any length, and refuses params that are not an object, naming them', async () => {
      const long = `/api/v1/query?query=${encodeURIComponent(`sum(gateway_info{job!="${'x'.repeat(300)}"})`)}`;
      expect(long.length).toBeGreaterThan(300);
      expect(expectOk(await ctx.driver.prometheus(long, {})).data).toMatchObject({ resultType: 'vector' });
      expectFailure(await ctx.driver.prometheus('/api/v1/query', 'query=up'), 'DATA_METRICS_INVALID_INPUT', /^params must be an object of query parameters$/);
      expectFailure(await ctx.driver.prometheus('/api/v1/query', ['up']), 'DATA_METRICS_INVALID_INPUT', /^params must be an object of query parameters$/);
    });

    it('answers a range query with one point per step, from the first sample on', async () => {
      // Rounded up: the last step is not before the newest sampling (the one that saw every ingest).
      const end = Math.ceil(Date.now() / 1000);
      const body = expectOk(
        await ctx.driver.prometheus('/api/v1/query_range', { query: `sum(gateway_ingestion_events_total{dataset="${big}", stage="received"})`, start: String(end - 60), end: String(end), step: '1s' }),
      );
      const data = body.data as { resultType: string; result: { metric: Json; values: [number, string][] }[] };
      expect(data.resultType).toBe('matrix');
      expect(data.result).toHaveLength(1);
      const times = data.result[0]!.values.map(([t]) => t);
      // No gaps: a point every second from when the series was first sampled up to `end`.
      expect(times).toEqual(Array.from({ length: times.length }, (_, i) => end - times.length + 1 + i));
      expect(times.length).toBeGreaterThan(1);
      const values = data.result[0]!.values.map(([, value]) => Number(value));
      expect(values[values.length - 1]).toBe(7);
      expect(values.every((value, i) => i === 0 || value >= values[i - 1]!)).toBe(true);
    });

    it('answers nothing, not a failure, for times an offset or @ puts beyond any sample', async () => {
      for (const query of ['gateway_info @ 99999999999999999', 'gateway_info offset 99999999999y', 'rate(gateway_info[5m] @ -99999999999999999)']) {
        expect(await vector(query)).toEqual([]);
      }
      // The same selector at an ordinary time does answer (the empty answers above are about time).
      expect(await vector('gateway_info')).not.toEqual([]);
    });

    it('lists series, label names and label values', async () => {
      const series = expectOk(await ctx.driver.prometheus('/api/v1/series', { 'match[]': [`gateway_ingestion_events_total{dataset="${small}"}`] }));
      expect((series.data as Record<string, string>[]).map((labels) => labels.stage).sort()).toEqual(['duplicate', 'failed', 'processed', 'received']);
      expect((series.data as Record<string, string>[])[0]).toMatchObject({ __name__: 'gateway_ingestion_events_total', job: 'gateway', dataset: small });
      const names = expectOk(await ctx.driver.prometheus('/api/v1/labels', {}));
      expect(names.data).toEqual(expect.arrayContaining(['__name__', 'dataset', 'instance', 'job', 'stage']));
      const values = expectOk(await ctx.driver.prometheus('/api/v1/label/dataset/values', {}));
      expect(values.data).toEqual(expect.arrayContaining([big, small]));
    });

    it.each([
      ['/api/v1/query', { query: 'holt_winters(gateway_info[5m], 0.5, 0.5)' }, /function "holt_winters" is not supported/],
      ['/api/v1/query', { query: 'sum(gateway_info' }, /invalid PromQL/],
      ['/api/v1/query', {}, /query: a PromQL expression is required/],
      ['/api/v1/query', { query: 'gateway_info', time: 'yesterday' }, /time: cannot parse "yesterday"/],
      ['/api/v1/query', { query: 'gateway_info', time: '99999999999999999999' }, /time: 99999999999999999999 is outside the times/],
      ['/api/v1/query_range', { query: 'gateway_info', start: '1', end: '2', step: '1', time: '1' }, /does not take "time"/],
      ['/api/v1/query_range', { query: 'gateway_info', start: '1', end: '2' }, /step/],
      ['/api/v1/query_range', { query: 'gateway_info', start: '100', end: '50', step: '1' }, /end timestamp must not be before start time/],
      ['/api/v1/series', {}, /match\[\]: at least one series selector is required/],
      ['/api/v1/query', { query: 'up', host: 'http://169.254.169.254' }, /does not take "host"/],
      ['/api/v1/admin/tsdb/delete_series', { 'match[]': 'up' }, /not one of Prometheus's read endpoints/],
      ['/../../etc/passwd', {}, /not one of Prometheus's read endpoints/],
    ])('refuses %s %j, naming what is wrong', async (path, params, message) => {
      expectFailure(await ctx.driver.prometheus(path, params), 'DATA_METRICS_INVALID_INPUT', message);
    });
  });

  describe('native queries and datasource sizes', () => {
    it("runs a Druid native query on a dataset's datasource", async () => {
      const rows = expectOk(
        await ctx.driver.native({
          queryType: 'timeseries',
          dataSource: big,
          granularity: 'all',
          intervals: ['2026-03-01T00:00:00Z/2026-03-05T00:00:00Z'],
          aggregations: [{ type: 'count', name: 'events' }],
        }),
      );
      expect(rows).toEqual([expect.objectContaining({ result: { events: 7 } })]);
    });

    it('refuses a native query on no dataset, or on a dataset that does not exist', async () => {
      expectFailure(await ctx.driver.native({ queryType: 'timeseries', granularity: 'all', intervals: ['2026-03-01/2026-03-02'] }), 'DATA_METRICS_INVALID_INPUT', /names no dataSource/);
      // The service's rule (issue 34; REST's schema held it before): one message on both transports.
      expectFailure(await ctx.driver.native('SELECT 1'), 'DATA_METRICS_INVALID_INPUT', /^query\.body\.query must be a Druid native query object$/);
      expectFailure(await ctx.driver.native({ queryType: 'timeseries', dataSource: 'no-such-dataset', granularity: 'all', intervals: ['2026-03-01/2026-03-02'] }), 'DATASET_NOT_FOUND');
    });

    it('lists each Live datasource with the size of its events, the bigger dataset bigger', async () => {
      const sources = expectOk(await ctx.driver.datasources());
      const size = (id: string) => sources.find((source) => source.name.includes(id.replaceAll('-', '_')) || source.name.includes(id))?.bytes;
      expect(size(big)).toBeGreaterThan(size(small)!);
      expect(size(small)).toBeGreaterThan(0);
    });
  });
}
