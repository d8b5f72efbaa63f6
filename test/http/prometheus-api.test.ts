// Prometheus's HTTP API at /prometheus, as Grafana's Prometheus data source and promtool call it:
// promtool (Debian's prometheus package) gets the same numbers as POST /v2/data/metrics, the paths
// take GET and form POST, refuse callers without credentials when authentication is on, answer bad
// PromQL in Prometheus's error shape; and every expression of the Grafana dashboard in deploy/
// evaluates against the gateway.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from '@jest/globals';
import { envelope } from '../support/api.js';
import { apiKey, JWT_ENV } from '../support/auth.js';
import { findBinary } from '../support/alerting.js';
import { seedDataset, type Json } from '../support/datasets.js';
import { startTestGateway, useForFile } from '../support/gateway.js';
import { startPrometheusWith } from '../support/prometheus.js';
import { describeWhenInstalled } from '../support/skip.js';

const promtool = findBinary('promtool');
const prometheusBinary = findBinary('prometheus');
const DATASET = 'prom-api-orders';
const gw = useForFile(() => startTestGateway());

/** Whole seconds: the times of the three samplings, 15 s apart, the last a minute ago. */
const T = Math.floor(Date.now() / 15_000) * 15 - 60;
const EVENTS_RECEIVED = 'gateway_ingestion_events_total{stage="received", dataset="prom-api-orders"}';

let sampled: Promise<void> | undefined;
/** Seeds a Live dataset and samples the gateway's metrics at T-30 s, after 5 events at T-15 s and after 3 more at T. */
function sampledIngests(): Promise<void> {
  sampled ??= (async () => {
    await seedDataset(gw(), DATASET, 'Live');
    const ingest = async (ids: string[]) => {
      const response = await gw()
        .http.post(`/v2/data/in/${DATASET}`)
        .send({ ...envelope('api.data.in'), data: ids.map((id) => ({ id, ts: '2026-03-01T10:00:00Z', userid: 'u1', amount: 1 })) });
      expect(response.status).toBe(200);
    };
    const sampler = gw().gateway.metricsSampler!;
    await sampler.sample((T - 30) * 1000);
    await ingest(['a1', 'a2', 'a3', 'a4', 'a5']);
    await sampler.sample((T - 15) * 1000);
    await ingest(['b1', 'b2', 'b3']);
    await sampler.sample(T * 1000);
  })();
  return sampled;
}

/** What POST /v2/data/metrics answers for a read endpoint (the console's route). */
async function viaDataMetrics(path: string, params: Record<string, string>): Promise<Json> {
  const response = await gw()
    .http.post('/v2/data/metrics')
    .send({ query: { url: `/prom${path}`, params } });
  expect(response.status).toBe(200);
  return response.body as Json;
}

const run = promisify(execFile);

describeWhenInstalled(promtool, 'prometheus')('promtool against /prometheus', () => {
  it('promtool query instant returns the numbers /v2/data/metrics returns', async () => {
    await sampledIngests();
    const query = `sum by (dataset) (${EVENTS_RECEIVED})`;
    const { stdout } = await run(promtool!, ['query', 'instant', '-o', 'json', `--time=${T}`, `${gw().url}/prometheus`, query]);
    const fromPromtool = JSON.parse(stdout) as { metric: Json; value: [number, string] }[];
    expect(fromPromtool).toEqual([{ metric: { dataset: DATASET }, value: [T, '8'] }]);
    const fromGateway = await viaDataMetrics('/api/v1/query', { query, time: String(T) });
    expect(fromGateway.data.result).toEqual(fromPromtool);
  });

  it('promtool query range returns the points /v2/data/metrics returns', async () => {
    await sampledIngests();
    const query = `sum(${EVENTS_RECEIVED})`;
    const window = { start: String(T - 30), end: String(T), step: '15' };
    const { stdout } = await run(promtool!, ['query', 'range', '-o', 'json', `--start=${window.start}`, `--end=${window.end}`, `--step=15s`, `${gw().url}/prometheus`, query]);
    const fromPromtool = JSON.parse(stdout) as { metric: Json; values: [number, string][] }[];
    // Written at zero at the sampling before the counter was first seen, then 5, then 8.
    expect(fromPromtool).toEqual([
      {
        metric: {},
        values: [
          [T - 30, '0'],
          [T - 15, '5'],
          [T, '8'],
        ],
      },
    ]);
    const fromGateway = await viaDataMetrics('/api/v1/query_range', { query, ...window });
    expect(fromGateway.data.result).toEqual(fromPromtool);
  });

  it('promtool query labels and series list what the store holds', async () => {
    await sampledIngests();
    const labels = await run(promtool!, ['query', 'labels', `${gw().url}/prometheus`, 'stage']);
    expect(labels.stdout.trim().split('\n')).toEqual(expect.arrayContaining(['duplicate', 'failed', 'processed', 'received']));
    const series = await run(promtool!, ['query', 'series', `--match=${EVENTS_RECEIVED}`, `${gw().url}/prometheus`]);
    expect(series.stdout.trim().split('\n')).toHaveLength(1);
    expect(series.stdout).toContain(`dataset="${DATASET}"`);
  });
});

describe('the Prometheus HTTP API', () => {
  it('answers GET and form-encoded POST alike, as Grafana sends them', async () => {
    await sampledIngests();
    const query = `sum(${EVENTS_RECEIVED})`;
    const viaGet = await gw()
      .http.get('/prometheus/api/v1/query')
      .query({ query, time: String(T) });
    const viaPost = await gw()
      .http.post('/prometheus/api/v1/query')
      .type('form')
      .send({ query, time: String(T) });
    expect(viaGet.status).toBe(200);
    expect(viaGet.body).toEqual({ status: 'success', data: { resultType: 'vector', result: [{ metric: {}, value: [T, '8'] }] } });
    expect(viaPost.body).toEqual(viaGet.body);
    // Grafana adds parameters of its own; Prometheus ignores what it does not take, and so do we.
    const withExtras = await gw()
      .http.post('/prometheus/api/v1/query_range')
      .type('form')
      .send(`query=${encodeURIComponent(query)}&start=${T - 15}&end=${T}&step=15&timeout=30s&stats=all`);
    expect(withExtras.body.data.result).toEqual([
      {
        metric: {},
        values: [
          [T - 15, '5'],
          [T, '8'],
        ],
      },
    ]);
  });

  it('lists series, label names, label values and metadata; answers buildinfo', async () => {
    await sampledIngests();
    const series = await gw()
      .http.post('/prometheus/api/v1/series')
      .type('form')
      .send(`match[]=${encodeURIComponent(`gateway_ingestion_events_total{dataset="${DATASET}"}`)}&start=${T - 60}&end=${T}`);
    expect((series.body.data as Json[]).map((labels) => labels.stage).sort()).toEqual(['duplicate', 'failed', 'processed', 'received']);
    const labels = await gw().http.get('/prometheus/api/v1/labels');
    expect(labels.body.data).toEqual(expect.arrayContaining(['__name__', 'dataset', 'instance', 'job', 'stage']));
    const values = await gw().http.get('/prometheus/api/v1/label/dataset/values');
    expect(values.body.data).toContain(DATASET);
    const metadata = await gw().http.get('/prometheus/api/v1/metadata').query({ metric: 'gateway_ingestion_events_total' });
    expect(metadata.body).toEqual({ status: 'success', data: { gateway_ingestion_events_total: [{ type: 'counter', help: expect.stringContaining('Ingested events'), unit: '' }] } });
    const histogram = await gw().http.get('/prometheus/api/v1/metadata').query({ metric: 'gateway_http_request_duration_seconds' });
    expect(histogram.body.data.gateway_http_request_duration_seconds[0].type).toBe('histogram');
    // A list cut at the caller's limit says so, as Prometheus does; a whole one does not.
    const cut = await gw()
      .http.get('/prometheus/api/v1/series')
      .query({ 'match[]': `gateway_ingestion_events_total{dataset="${DATASET}"}`, limit: '2' });
    expect({ items: (cut.body.data as Json[]).length, warnings: cut.body.warnings }).toEqual({ items: 2, warnings: ['results truncated due to limit'] });
    const cutNames = await gw().http.get('/prometheus/api/v1/labels').query({ limit: '1' });
    expect(cutNames.body).toEqual({ status: 'success', data: ['__name__'], warnings: ['results truncated due to limit'] });
    const whole = await gw()
      .http.get('/prometheus/api/v1/label/stage/values')
      .query({ 'match[]': `gateway_ingestion_events_total{dataset="${DATASET}"}`, limit: '4' });
    expect(whole.body).toEqual({ status: 'success', data: ['duplicate', 'failed', 'processed', 'received'] });
    const buildinfo = await gw().http.get('/prometheus/api/v1/status/buildinfo');
    expect(buildinfo.body).toMatchObject({ status: 'success', data: { version: expect.stringMatching(/^2\.\d+\.\d+$/) } });
  });

  it("answers bad PromQL and bad parameters in Prometheus's error shape", async () => {
    const bad = await gw().http.get('/prometheus/api/v1/query').query({ query: 'sum(rate(gateway_http_requests_total[5m]' });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ status: 'error', errorType: 'bad_data', error: expect.stringMatching(/invalid PromQL/) });
    const noStep = await gw().http.post('/prometheus/api/v1/query_range').type('form').send({ query: 'gateway_info', start: '1', end: '2' });
    expect(noStep.status).toBe(400);
    expect(noStep.body).toMatchObject({ status: 'error', errorType: 'bad_data', error: expect.stringMatching(/step/) });
    const badLabel = await gw().http.get('/prometheus/api/v1/label/9bad/values');
    expect(badLabel.body).toMatchObject({ status: 'error', errorType: 'bad_data' });
    const unknown = await gw().http.get('/prometheus/api/v1/targets');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ status: 'error', errorType: 'not_found' });
    const deleted = await gw().http.delete('/prometheus/api/v1/series');
    expect(deleted.status).toBe(405);
  });

  /** Every expression of the dashboard, with Grafana's variables filled in as Grafana would, answered over the sampled range. */
  async function dashboardAnswers(instance: string) {
    const dashboard = JSON.parse(readFileSync(new URL('../../deploy/grafana/gateway-dashboard.json', import.meta.url), 'utf8')) as { panels: { title: string; targets: { expr: string }[] }[] };
    const filled = (expr: string) => expr.replaceAll('$__rate_interval', '1m').replaceAll('$__range', '5m').replaceAll('$instance', instance).replaceAll('$dataset', '.*');
    const expressions = dashboard.panels.flatMap((panel) => panel.targets.map((target) => ({ panel: panel.title, expr: filled(target.expr) })));
    expect(expressions.length).toBeGreaterThan(10);
    const answers = await Promise.all(
      expressions.map(async ({ panel, expr }) => {
        const response = await gw()
          .http.post('/prometheus/api/v1/query_range')
          .type('form')
          .send({ query: expr, start: String(T - 30), end: String(T), step: '15' });
        return { panel, expr, status: response.status, body: response.body as Json };
      }),
    );
    expect(answers.filter((answer) => answer.status !== 200)).toEqual([]);
    /** The last value of a panel's first query, or "No data" when it gave no series. */
    const last = (panel: string) => {
      const result = answers.find((answer) => answer.panel === panel)!.body.data.result as { values: [number, string][] }[];
      return result.length === 0 ? 'No data' : Number(result[0]!.values.at(-1)![1]);
    };
    return { answers, last };
  }

  it('evaluates every expression of the Grafana dashboard in deploy/grafana, with every gateway chosen', async () => {
    await sampledIngests();
    const { last } = await dashboardAnswers('.*');
    // The ingestion panels show the known ingest.
    expect(last('Events received (range)')).toBeGreaterThanOrEqual(8);
    expect(last('Gateways up')).toBe(1);
  });

  it('with one gateway chosen, still shows the ingestion (shared series), 0 for an empty 5xx share, and that gateway up', async () => {
    await sampledIngests();
    const instances = (await gw().http.get('/prometheus/api/v1/label/instance/values')).body.data as string[];
    expect(instances).toHaveLength(1);
    const { last, answers } = await dashboardAnswers(instances[0]!.replace(/[.]/g, '\\.'));
    expect({ received: last('Events received (range)'), failed: last('Events failed (range)'), fiveXx: last('5xx share'), up: last('Gateways up') }).toEqual({
      received: expect.any(Number),
      failed: 0,
      fiveXx: 0,
      up: 1,
    });
    expect(last('Events received (range)')).toBeGreaterThanOrEqual(8);
    // Every ingestion chart has its series too, not only the totals.
    for (const panel of ['Ingested events per second by dataset and stage', 'Ingest calls per second by outcome']) {
      expect([panel, (answers.find((answer) => answer.panel === panel)!.body.data.result as unknown[]).length > 0]).toEqual([panel, true]);
    }
  });
});

describe('the Prometheus HTTP API with authentication on', () => {
  const secured = useForFile(() => startTestGateway(JWT_ENV));

  it('refuses a caller without credentials, and one whose role lacks api.data.metrics', async () => {
    const anonymous = await secured().http.get('/prometheus/api/v1/query').query({ query: 'gateway_info' });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ status: 'error', errorType: 'unauthorized', error: expect.stringMatching(/Authentication is required/) });
    const ingestor = await apiKey(secured(), ['ingestor']);
    const denied = await secured().http.post('/prometheus/api/v1/query').set('x-api-key', ingestor).type('form').send({ query: 'gateway_info' });
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ status: 'error', errorType: 'forbidden' });
  });

  it('answers a caller with an API key of a role that reads metrics', async () => {
    const viewer = await apiKey(secured(), ['viewer']);
    const response = await secured().http.get('/prometheus/api/v1/query').set('x-api-key', viewer).query({ query: '1 + 1' });
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({ resultType: 'scalar', result: [expect.any(Number), '2'] });
  });
});

describeWhenInstalled(promtool && prometheusBinary, 'prometheus')('the Prometheus HTTP API with PROMETHEUS_URL', () => {
  // A real Prometheus holding one series: 1, 2, 3 a minute apart, ending a minute before `end`.
  const end = Math.floor(Date.now() / 60_000) * 60 - 60;
  const times = [end - 180, end - 120, end - 60].map((seconds) => seconds * 1000);
  const upstream = useForFile(() => startPrometheusWith(prometheusBinary!, promtool!, [{ labels: { __name__: 'upstream_jobs_total', queue: 'q1' }, times, values: [1, 2, 3] }]), 60_000);
  const passing = useForFile(() => startTestGateway({ PROMETHEUS_URL: upstream().url }));

  it("passes query, query_range, labels, metadata and buildinfo on to it and answers Prometheus's own bodies", async () => {
    const instant = await passing()
      .http.post('/prometheus/api/v1/query')
      .type('form')
      .send({ query: 'upstream_jobs_total', time: String(end) });
    expect(instant.body).toEqual({ status: 'success', data: { resultType: 'vector', result: [{ metric: { __name__: 'upstream_jobs_total', queue: 'q1' }, value: [end, '3'] }] } });
    const range = await passing()
      .http.get('/prometheus/api/v1/query_range')
      .query({ query: 'sum(upstream_jobs_total)', start: String(end - 120), end: String(end - 60), step: '60' });
    expect(range.body.data.result).toEqual([
      {
        metric: {},
        values: [
          [end - 120, '2'],
          [end - 60, '3'],
        ],
      },
    ]);
    expect((await passing().http.get('/prometheus/api/v1/label/queue/values')).body).toMatchObject({ status: 'success', data: ['q1'] });
    const buildinfo = await passing().http.get('/prometheus/api/v1/status/buildinfo');
    // Its own version, not the embedded store's.
    expect(buildinfo.body.data.version).toMatch(/^2\.42\./);
    expect(buildinfo.body.data.branch).not.toBe('embedded');
    expect((await passing().http.get('/prometheus/api/v1/metadata')).body.status).toBe('success');
    const bad = await passing().http.get('/prometheus/api/v1/query').query({ query: 'sum(' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ status: 'error', errorType: 'bad_data' });
  });
});
