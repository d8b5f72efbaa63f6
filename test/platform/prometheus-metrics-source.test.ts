// The Prometheus metrics source (issue 8): what it sends to Prometheus's HTTP API (instant queries
// with the dataset id as an escaped label value, evaluated at each window's end) and how it reads
// Prometheus's documented answers (vector and scalar results, empty results, NaN, errors, time
// limits); then the gateway's metrics computed from it; then, when PROMETHEUS_URL is set, a real
// Prometheus: PROMETHEUS_URL=http://127.0.0.1:9090 npm test -- test/platform/prometheus-metrics-source.test.ts
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { GatewayError } from '../../src/errors.js';
import { PrometheusMetricsSource, promqlString } from '../../src/platform/metrics-source/prometheus.js';
import { envelope } from '../support/api.js';
import { insertV1Live, seedDataset } from '../support/datasets.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { startHttpStub, type HttpStub, type StubRequest } from '../support/http-stub.js';
import { figuresAfterFreshness, freshnessFigures } from '../support/metrics.js';
import { findBinary } from '../support/alerting.js';
import { startEmptyPrometheus, type RunningPrometheus } from '../support/prometheus.js';
import { describeWhenInstalled } from '../support/skip.js';

let prometheus: HttpStub;
beforeAll(async () => {
  prometheus = await startHttpStub();
});
afterAll(async () => {
  await prometheus?.close();
});

// ---------------------------------------------------------------------------------------------
// Helpers (local to this file)

const NOW = new Date('2026-11-22T12:00:00.000Z');
const HOUR = 3_600_000;
/** `time` as sent for NOW, and for an hour earlier (Unix seconds, millisecond precision). */
const AT_NOW = '1795348800.000';
const HOUR_BEFORE = '1795345200.000';
const window = (hours: number, endsAgoHours = 0) => ({ from: new Date(NOW.getTime() - (endsAgoHours + hours) * HOUR), to: new Date(NOW.getTime() - endsAgoHours * HOUR) });

/** The form fields of a recorded query. */
function form(request: StubRequest): { query: string; time: string } {
  const params = new URLSearchParams(request.body);
  return { query: params.get('query') ?? '', time: params.get('time') ?? '' };
}

function vector(...samples: [Record<string, string>, string][]) {
  return { status: 'success', data: { resultType: 'vector', result: samples.map(([metric, value]) => ({ metric, value: [NOW.getTime() / 1000, value] })) } };
}

/** Answers each query by the first rule whose pattern it contains. */
function answerBy(rules: [string, unknown][]) {
  return (request: StubRequest) => {
    const { query } = form(request);
    const rule = rules.find(([pattern]) => query.includes(pattern));
    return { status: 200, body: rule ? rule[1] : vector() };
  };
}

function source(timeoutMs = 2_000): PrometheusMetricsSource {
  return new PrometheusMetricsSource({ url: `${prometheus.url}/`, timeoutMs });
}

async function failure(work: Promise<unknown>): Promise<GatewayError> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GatewayError);
  expect((error as GatewayError).code).toBe('FAILED_TO_FETCH_METRICS');
  expect((error as GatewayError).kind).toBe('FAILED');
  return error as GatewayError;
}

// ---------------------------------------------------------------------------------------------

describe('PromQL label values', () => {
  it.each([
    ['orders', '"orders"'],
    ['a"b', '"a\\"b"'],
    ['a\\b', '"a\\\\b"'],
    ['line\nbreak\ttab', '"line\\x0abreak\\x09tab"'],
    ['x"} or vector(1) #', '"x\\"} or vector(1) #"'],
    ['\uD800lone', '"\uFFFDlone"'],
  ])('%j is written as the PromQL string %s', (value, literal) => {
    expect(promqlString(value)).toBe(literal);
  });
});

describe('what the source sends and how it reads the answers', () => {
  it('asks for freshness at the window end: the newest event time gauge and the mean lag from the lag summary', async () => {
    prometheus.requests.length = 0;
    prometheus.answer = answerBy([
      ['pipeline_last_event_timestamp_seconds', vector([{}, String(NOW.getTime() / 1000 - 90)])],
      ['pipeline_event_lag_seconds_sum', { status: 'success', data: { resultType: 'vector', result: [{ metric: {}, value: [0, '42.5'] }] } }],
    ]);
    const figures = await source().freshness('orders', window(168));
    expect(figures).toEqual({ newestEventTime: new Date(NOW.getTime() - 90_000), averageLagMs: 42_500 });
    expect(prometheus.requests.map((request) => [request.method, request.path, request.headers['content-type']])).toEqual([
      ['POST', '/api/v1/query', 'application/x-www-form-urlencoded'],
      ['POST', '/api/v1/query', 'application/x-www-form-urlencoded'],
    ]);
    expect(prometheus.requests.map(form).sort((a, b) => a.query.localeCompare(b.query))).toEqual([
      { query: 'max(pipeline_last_event_timestamp_seconds{dataset_id="orders"})', time: AT_NOW },
      {
        query: 'sum(increase(pipeline_event_lag_seconds_sum{dataset_id="orders"}[604800s])) / sum(increase(pipeline_event_lag_seconds_count{dataset_id="orders"}[604800s]))',
        time: AT_NOW,
      },
    ]);
  });

  it('reads no series and NaN (nothing to divide) as "nothing to measure"', async () => {
    prometheus.answer = answerBy([['pipeline_event_lag_seconds_sum', vector([{}, 'NaN'])]]);
    expect(await source().freshness('orders', window(1))).toEqual({ newestEventTime: null, averageLagMs: null });
  });

  it('counts each volume window with increase() over the window, evaluated at its end, as a whole number', async () => {
    prometheus.requests.length = 0;
    prometheus.answer = (request) => {
      const { time } = form(request);
      // The window ending now holds 12.6 (increase() extrapolates); the one an hour earlier none.
      return { status: 200, body: Number(time) === NOW.getTime() / 1000 ? vector([{}, '12.6']) : vector() };
    };
    expect(await source().volume('orders', [window(1), window(1, 1), window(24)])).toEqual([13, 0, 13]);
    expect(prometheus.requests.map(form)).toEqual([
      { query: 'sum(increase(pipeline_events_processed_total{dataset_id="orders"}[3600s]))', time: AT_NOW },
      { query: 'sum(increase(pipeline_events_processed_total{dataset_id="orders"}[3600s]))', time: HOUR_BEFORE },
      { query: 'sum(increase(pipeline_events_processed_total{dataset_id="orders"}[86400s]))', time: AT_NOW },
    ]);
  });

  it('reads stage outcomes by stage and connector figures by connector', async () => {
    prometheus.answer = answerBy([
      ['sum by (stage) (increase(pipeline_events_failed_total', vector([{ stage: 'validation' }, '3'], [{ stage: 'dedup' }, '2.4'])],
      ['sum by (connector) (increase(pipeline_events_processed_total', vector([{ connector: 'api' }, '80'], [{ connector: 'kafka-in-1' }, '20'])],
      ['sum by (connector) (increase(pipeline_events_failed_total', vector([{ connector: 'api' }, '5'])],
      ['sum(increase(pipeline_events_processed_total', vector([{}, '100'])],
    ]);
    expect(await source().outcomes('orders', window(24))).toEqual({ stored: 100, failedByStage: { validation: 3, dedup: 2 } });
    expect(await source().connectors('orders', window(24))).toEqual([
      { id: 'api', stored: 80, failed: 5 },
      { id: 'kafka-in-1', stored: 20, failed: 0 },
    ]);
  });

  it("reads the API calls about the dataset against all datasets' calls, and accepts a scalar result", async () => {
    prometheus.requests.length = 0;
    prometheus.answer = answerBy([
      ['dataset_id!=""', { status: 'success', data: { resultType: 'scalar', result: [NOW.getTime() / 1000, '400'] } }],
      ['node_total_api_calls{dataset_id="orders"}', vector([{}, '100'])],
    ]);
    expect(await source().apiCalls('orders', window(24))).toEqual({ dataset: 100, all: 400 });
    expect(prometheus.requests.map((request) => form(request).query).sort()).toEqual([
      'sum(increase(node_total_api_calls{dataset_id!=""}[86400s]))',
      'sum(increase(node_total_api_calls{dataset_id="orders"}[86400s]))',
    ]);
  });

  it('sends a dataset id that holds quotes as an escaped label value, never as query text', async () => {
    prometheus.requests.length = 0;
    prometheus.answer = () => ({ status: 200, body: vector() });
    await source().volume('x"} or vector(1) #', [window(1)]);
    expect(form(prometheus.requests[0]!).query).toBe('sum(increase(pipeline_events_processed_total{dataset_id="x\\"} or vector(1) #"}[3600s]))');
  });

  it.each([
    [400, { status: 'error', errorType: 'bad_data', error: 'parse error at char 12' }, /answered HTTP 400 \(bad_data: parse error at char 12\)$/],
    [422, { status: 'error', errorType: 'execution', error: 'query timed out' }, /answered HTTP 422 \(execution: query timed out\)$/],
    [503, { status: 'error', errorType: 'unavailable', error: 'TSDB not ready' }, /answered HTTP 503 \(unavailable: TSDB not ready\)$/],
  ])('fails with FAILED_TO_FETCH_METRICS naming an HTTP %d error answer', async (status, body, message) => {
    prometheus.answer = () => ({ status, body });
    expect((await failure(source().volume('orders', [window(1)]))).message).toMatch(message);
  });

  it('fails with FAILED_TO_FETCH_METRICS on an answer that is not Prometheus JSON, or not an instant vector', async () => {
    prometheus.answer = () => ({ status: 502, text: 'Bad Gateway' });
    expect((await failure(source().volume('orders', [window(1)]))).message).toMatch(/answered HTTP 502 \(Bad Gateway\)$/);
    prometheus.answer = () => ({ status: 200, body: { status: 'success', data: { resultType: 'matrix', result: [] } } });
    expect((await failure(source().volume('orders', [window(1)]))).message).toMatch(/answered a matrix result where an instant vector was expected$/);
  });

  it('fails with FAILED_TO_FETCH_METRICS when Prometheus does not answer in time', async () => {
    prometheus.answer = () => ({ status: 200, body: vector(), delayMs: 1_000 });
    expect((await failure(source(200).volume('orders', [window(1)]))).message).toMatch(/did not answer within 200 ms$/);
  });
});

describe('the gateway reading Prometheus (PROMETHEUS_URL)', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ PROMETHEUS_URL: prometheus.url });
    await seedDataset(gw, 'prom_orders', 'Live', { connectors_config: [{ id: 'kafka-in-1', connector_id: 'kafka-connector-1.0.0', connector_config: {}, version: 'v2' }] });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
  });

  it('computes every component from the figures Prometheus holds', async () => {
    const newest = Date.now() - 3 * 60_000;
    prometheus.answer = (request) => {
      const { query, time } = form(request);
      const at = Number(time) * 1000;
      const answer = (value: string) => ({ status: 200, body: vector([{}, value]) });
      if (query.includes('pipeline_last_event_timestamp_seconds')) return answer(String(newest / 1000));
      if (query.includes('pipeline_event_lag_seconds')) return answer('60');
      if (query.includes('node_total_api_calls{dataset_id="prom_orders"}')) return answer('30');
      if (query.includes('node_total_api_calls')) return answer('120');
      if (query.includes('sum by (stage)')) return { status: 200, body: vector([{ stage: 'validation' }, '10'], [{ stage: 'dedup' }, '5']) };
      if (query.includes('sum by (connector) (increase(pipeline_events_processed_total')) return { status: 200, body: vector([{ connector: 'api' }, '185']) };
      if (query.includes('sum by (connector) (increase(pipeline_events_failed_total')) return { status: 200, body: vector([{ connector: 'api' }, '15']) };
      // Processed events: 40 in the last hour, 20 in the hour before; 185 over any longer window ending now, 100 before.
      if (query.includes('[3600s]')) return answer(Date.now() - at < HOUR / 2 ? '40' : '20');
      return answer(Date.now() - at < HOUR / 2 ? '185' : '100');
    };
    const response = await gw.http.post('/v2/dataset/metrics').send(envelope('api.dataset.metrics', { dataset_id: 'prom_orders' }));
    expect(response.status).toBe(200);
    const [freshness, ...rest] = response.body.result as { components: { value?: number }[] }[];
    expect(freshness).toEqual(freshnessFigures('Healthy', [1, expect.any(Number)]));
    expect(freshness!.components[1]!.value).toBeGreaterThanOrEqual(3);
    expect(freshness!.components[1]!.value).toBeLessThan(3.5);
    expect(rest).toEqual(
      figuresAfterFreshness({
        // 10 validation failures in 200 events: 5 %, not above the threshold.
        observability: { status: 'Healthy', failure_percentage: 5, importance_score: 25 },
        volume: {
          events_per_hour: 40,
          events_per_day: 185,
          events_per_n_day: 185,
          volume_percentage_by_hour: 100,
          volume_percentage_by_day: 85,
          volume_percentage_by_week: 85,
          growth_rate_percentage: 85,
        },
        lineage: { transformation_success: 185, dedup_success: 185, denormalization_success: 185, total_success: 185, total_failed: 15, transformation_failed: 0, dedup_failed: 5, denorm_failed: 0 },
        connectors: [
          ['api', 185, 15],
          ['kafka-in-1', 0, 0],
        ],
        quality: { incidents_failed: 10, incidents_success: 190, total_incidents: 200 },
      }),
    );
  });
});

// A real Prometheus (PROMETHEUS_URL when given, else one started from the Debian package): the
// queries parse and run, an id holding PromQL syntax stays a label value (a spliced `or vector(1)`
// would make every count 1), and a Prometheus with no pipeline series yields zeros.
const PROMETHEUS_URL = process.env.PROMETHEUS_URL;
const prometheusBinary = findBinary('prometheus');
describeWhenInstalled(PROMETHEUS_URL ?? prometheusBinary, 'prometheus')('against a real Prometheus', () => {
  let gw: TestGateway;
  let started: RunningPrometheus | undefined;
  const hostile = 'prom_x"} or vector(1) #';
  beforeAll(async () => {
    if (!PROMETHEUS_URL) started = await startEmptyPrometheus(prometheusBinary!);
    gw = await startTestGateway({ PROMETHEUS_URL: PROMETHEUS_URL ?? started!.url });
    await insertV1Live(gw, hostile);
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    await started?.stop();
  });

  it('runs every query and reads zeros for a dataset Prometheus has no series of, however its id is spelled', async () => {
    const response = await gw.http.post('/v2/dataset/metrics').send(envelope('api.dataset.metrics', { dataset_id: hostile }));
    expect(response.body.error).toBeUndefined();
    const values = (response.body.result as { components: { type: string; value?: number }[] }[]).flatMap((category) =>
      category.components.filter((component) => component.value !== undefined && component.type !== 'threshold_percentage').map((component) => component.value),
    );
    expect(values.length).toBeGreaterThan(15);
    expect(values.every((value) => value === 0)).toBe(true);
  });
});
