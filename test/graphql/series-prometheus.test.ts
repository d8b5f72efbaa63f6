// metricSeries against a real Prometheus (PROMETHEUS_URL): Debian's prometheus, loaded with known
// samples through promtool, answers query_range; the gateway's metricSeries for the same query, range
// and step gives the same series (labels) and the same numbers at every step, a gap (no sample within
// Prometheus's lookback) as a null point. Skipped, with the reason, where Prometheus is not installed.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { graphql } from '../support/api.js';
import { findBinary } from '../support/alerting.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { startPrometheusWith, type RunningPrometheus } from '../support/prometheus.js';
import { describeWhenInstalled } from '../support/skip.js';
import type { StoredSeries } from '../../src/platform/promql/evaluator.js';

const prometheusBinary = findBinary('prometheus');
const promtool = findBinary('promtool');

const MINUTE = 60_000;
/** The last sample, on the minute, a few minutes ago; the samples cover the half hour before it. */
const END = Math.floor(Date.now() / MINUTE) * MINUTE - 5 * MINUTE;
const START = END - 30 * MINUTE;

function sampled(labels: Record<string, string>, valueAt: (n: number) => number | undefined): StoredSeries {
  const times: number[] = [];
  const values: number[] = [];
  for (let n = 0, t = START; t <= END; n += 1, t += 15_000) {
    const value = valueAt(n);
    if (value === undefined) continue;
    times.push(t);
    values.push(value);
  }
  return { labels, times, values };
}

// A counter that resets halfway, a sparse counter with a twelve-minute hole, and a gauge with fractions.
const SERIES: StoredSeries[] = [
  sampled({ __name__: 'live_requests_total', code: '200', instance: 'a' }, (n) => (n < 60 ? n * 7 : (n - 60) * 3)),
  sampled({ __name__: 'live_requests_total', code: '500', instance: 'a' }, (n) => (n >= 40 && n < 88 ? undefined : n)),
  sampled({ __name__: 'live_temperature', room: 'lab' }, (n) => 20 + Math.sin(n / 5) * 3.25),
];

const METRIC_SERIES = `query($q: String!, $start: DateTime!, $end: DateTime!, $step: Int!) {
  metricSeries(query: $q, start: $start, end: $end, step: $step) { labels { name value } points { t v } }
}`;

type Points = Record<string, Record<number, number>>;
const keyOf = (labels: Record<string, string>) => JSON.stringify(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

const maybe = describeWhenInstalled(prometheusBinary && promtool, 'prometheus');

maybe('metricSeries with PROMETHEUS_URL', () => {
  let prometheus: RunningPrometheus;
  let gw: TestGateway;
  beforeAll(async () => {
    prometheus = await startPrometheusWith(prometheusBinary!, promtool!, SERIES);
    gw = await startTestGateway({ PROMETHEUS_URL: prometheus.url });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    await prometheus?.stop();
  });

  /** Prometheus's own query_range answer, as series key → step (s) → value. */
  async function queryRange(query: string, step: number): Promise<Points> {
    const url = `${prometheus.url}/api/v1/query_range?${new URLSearchParams({ query, start: String(START / 1000), end: String(END / 1000), step: String(step) })}`;
    const body = (await (await fetch(url)).json()) as { status: string; data: { result: { metric: Record<string, string>; values: [number, string][] }[] } };
    expect(body.status).toBe('success');
    return Object.fromEntries(body.data.result.map((series) => [keyOf(series.metric), Object.fromEntries(series.values.map(([t, v]) => [t, Number(v)]))]));
  }

  /** The gateway's metricSeries, in the same shape; every step of the range has its point (null where Prometheus has none). */
  async function metricSeries(query: string, step: number): Promise<{ points: Points; nulls: number }> {
    const response = await graphql(gw, METRIC_SERIES, { q: query, start: new Date(START).toISOString(), end: new Date(END).toISOString(), step });
    expect(response.errors).toBeUndefined();
    const steps = (END - START) / 1000 / step + 1;
    let nulls = 0;
    const points: Points = {};
    for (const series of response.data!.metricSeries as { labels: { name: string; value: string }[]; points: { t: string; v: number | null }[] }[]) {
      expect(series.points.map((point) => Date.parse(point.t))).toEqual(Array.from({ length: steps }, (_, i) => START + i * step * 1000));
      const values: Record<number, number> = {};
      for (const point of series.points) {
        if (point.v === null) nulls += 1;
        else values[Date.parse(point.t) / 1000] = point.v;
      }
      points[keyOf(Object.fromEntries(series.labels.map((label) => [label.name, label.value])))] = values;
    }
    return { points, nulls };
  }

  it('answers the series and numbers of query_range for a gauge, rates across a reset, and a counter with a hole', async () => {
    const gauge = await metricSeries('live_temperature', 60);
    expect(gauge.points).toEqual(await queryRange('live_temperature', 60));
    expect(Object.keys(gauge.points)).toEqual([keyOf({ __name__: 'live_temperature', room: 'lab' })]);

    const rates = await metricSeries('sum by (code) (rate(live_requests_total[2m]))', 30);
    expect(rates.points).toEqual(await queryRange('sum by (code) (rate(live_requests_total[2m]))', 30));
    expect(Object.keys(rates.points).sort()).toEqual([keyOf({ code: '200' }), keyOf({ code: '500' })]);

    const holed = await metricSeries('live_requests_total{code="500"}', 60);
    expect(holed.points).toEqual(await queryRange('live_requests_total{code="500"}', 60));
    // Twelve minutes without samples, less Prometheus's five-minute lookback: steps with no point.
    expect(holed.nulls).toBeGreaterThan(0);
  }, 60_000);
});
