// The embedded PromQL evaluator: what dashboards and alert rules ask of it, and, when Debian's
// prometheus package is installed, the same expressions over the same samples answered by a real
// Prometheus 2.x, compared point by point.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { instantQuery, LOOKBACK_MS, matchesAll, rangeQuery, UnsupportedQueryError, type SampleSource, type StoredSeries } from '../../src/platform/promql/evaluator.js';
import { findBinary } from '../support/alerting.js';
import { startPrometheusWith, type RunningPrometheus } from '../support/prometheus.js';
import { describeWhenInstalled } from '../support/skip.js';

const STEP = 15_000;
// A whole hour, so range steps of a minute fall on sample times.
const END = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3_600_000;
const START = END - 60 * 60_000;

/** A deterministic pseudo-random sequence (the same samples every run). */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

function buildSamples(): StoredSeries[] {
  const next = random(42);
  const series: StoredSeries[] = [];
  const times: number[] = [];
  for (let t = START; t <= END; t += STEP) times.push(t);
  for (const dataset of ['a', 'b', 'c']) {
    for (const stage of ['received', 'failed']) {
      let value = 0;
      const values = times.map((_, i) => {
        // dataset b's counters restart half way (a gateway restart).
        if (dataset === 'b' && i === 120) value = 0;
        value += Math.floor(next() * (stage === 'received' ? 20 : 3));
        return value;
      });
      series.push({ labels: { __name__: 'events_total', job: 'gateway', instance: 'g1', dataset, stage }, times, values });
    }
    // dataset c's gauge stops 20 minutes before the end: it goes stale after 5 minutes.
    const gaugeTimes = dataset === 'c' ? times.filter((t) => t <= END - 20 * 60_000) : times;
    series.push({ labels: { __name__: 'gauge_temp', job: 'gateway', dataset }, times: gaugeTimes, values: gaugeTimes.map(() => 15 + Math.round(next() * 200) / 10) });
    series.push({ labels: { __name__: 'dataset_info', dataset, unit: `unit-${dataset}` }, times, values: times.map(() => 1) });
    // Cumulative buckets: each observation lands in one band; a bucket counts every band at or below it.
    const buckets = ['0.1', '0.5', '1', '+Inf'].map((le) => ({ le, values: [] as number[] }));
    for (const _t of times) {
      const observations = Math.floor(next() * 10);
      const band = [0, 0, 0, 0];
      for (let o = 0; o < observations; o += 1) band[Math.floor(next() * 4)]! += 1;
      let running = 0;
      buckets.forEach((bucket, i) => {
        running += band[i]!;
        bucket.values.push((bucket.values[bucket.values.length - 1] ?? 0) + running);
      });
    }
    for (const bucket of buckets) series.push({ labels: { __name__: 'req_duration_bucket', job: 'gateway', dataset, le: bucket.le }, times, values: bucket.values });
  }
  return series;
}

function memorySource(series: readonly StoredSeries[]): SampleSource {
  return {
    select: async (matchers, from, to) =>
      series
        .filter((s) => matchesAll(s.labels, matchers))
        .map((s) => {
          const kept = Array.from(s.times, (t, i) => [t, s.values[i]!] as const).filter(([t]) => t >= from && t <= to);
          return { labels: s.labels, times: kept.map(([t]) => t), values: kept.map(([, v]) => v) };
        })
        .filter((s) => s.times.length > 0),
  };
}

const SAMPLES = buildSamples();
const source = memorySource(SAMPLES);

describe('the embedded PromQL evaluator', () => {
  it('counts what a counter gained: sum by (dataset) (increase(...[5m])) from a zero sample', async () => {
    const times = [END - 60_000, END - 45_000, END - 30_000, END - 15_000, END];
    const counters: StoredSeries[] = [
      { labels: { __name__: 'ingested_total', dataset: 'x', instance: 'g1' }, times, values: [0, 4, 4, 10, 10] },
      { labels: { __name__: 'ingested_total', dataset: 'x', instance: 'g2' }, times, values: [0, 0, 3, 3, 3] },
      { labels: { __name__: 'ingested_total', dataset: 'y', instance: 'g1' }, times, values: [0, 7, 7, 7, 7] },
    ];
    const result = await instantQuery(memorySource(counters), 'sum by (dataset) (increase(ingested_total[5m]))', END);
    expect(result.resultType).toBe('vector');
    const byDataset = Object.fromEntries((result.result as { labels: Record<string, string>; value: number }[]).map((sample) => [sample.labels.dataset, sample.value]));
    expect(byDataset).toEqual({ x: 13, y: 7 });
  });

  it('answers a range query with one point per step, each evaluated at its own time', async () => {
    const result = await rangeQuery(source, 'sum(gauge_temp{dataset="a"})', END - 10 * 60_000, END, 60_000);
    expect(result.result).toHaveLength(1);
    expect(Array.from(result.result[0]!.times)).toEqual(Array.from({ length: 11 }, (_, i) => END - 10 * 60_000 + i * 60_000));
    const gauge = SAMPLES.find((s) => s.labels.__name__ === 'gauge_temp' && s.labels.dataset === 'a')!;
    expect(result.result[0]!.values[10]).toBe(gauge.values[gauge.values.length - 1]);
  });

  it('forgets a series five minutes after its last sample', async () => {
    const now = await instantQuery(source, 'count(gauge_temp)', END);
    const earlier = await instantQuery(source, 'count(gauge_temp)', END - 20 * 60_000 + 4 * 60_000);
    expect(now.result).toEqual([{ labels: {}, value: 2 }]);
    expect(earlier.result).toEqual([{ labels: {}, value: 3 }]);
  });

  it.each([
    ['holt_winters(gauge_temp[10m], 0.5, 0.5)', /function "holt_winters" is not supported/],
    ['limitk(2, gauge_temp)', /aggregation "limitk" is not supported/],
    ['sum(gauge_temp', /invalid PromQL: expected "\)"/],
    ['gauge_temp + on(job) gauge_temp', /many-to-many matching not allowed/],
  ])('refuses %s, naming what it cannot answer', async (query, message) => {
    const run = instantQuery(source, query, END);
    await expect(run).rejects.toBeInstanceOf(UnsupportedQueryError);
    await expect(run).rejects.toThrow(message);
  });

  it('matches label patterns in linear time: a pattern that backtracks exponentially in JavaScript answers at once', () => {
    const labels = { dataset: 'a'.repeat(64) };
    expect(matchesAll(labels, [{ label: 'dataset', op: '=~', value: '(a|aa)+b' }])).toBe(false);
    expect(matchesAll(labels, [{ label: 'dataset', op: '!~', value: '(a|aa)+b' }])).toBe(true);
    expect(matchesAll(labels, [{ label: 'dataset', op: '=~', value: '(a|aa)+' }])).toBe(true);
  });

  it('refuses a range query over a range vector, and one with too many points', async () => {
    await expect(rangeQuery(source, 'gauge_temp[5m]', START, END, 60_000)).rejects.toThrow(/range query, must be scalar or instant vector/);
    await expect(rangeQuery(source, 'gauge_temp', 0, END, 1_000)).rejects.toThrow(/maximum resolution of 11000 points/);
  });
});

/** Expressions the console's dashboards and alert rules use, and the rest of the evaluator's reach. */
const EXPRESSIONS = [
  'events_total',
  'rate(events_total[5m])',
  'increase(events_total[5m])',
  'sum by (dataset) (increase(events_total[5m]))',
  'sum without (stage, instance) (rate(events_total[2m]))',
  'sum(events_total) by (dataset)',
  'irate(events_total[5m])',
  'resets(events_total[30m])',
  'delta(gauge_temp[10m])',
  'deriv(gauge_temp[10m])',
  'predict_linear(gauge_temp[10m], 600)',
  'changes(gauge_temp[10m])',
  'avg(gauge_temp)',
  'max by (dataset) (gauge_temp)',
  'min(gauge_temp)',
  'count(gauge_temp)',
  'stddev(gauge_temp)',
  'stdvar(gauge_temp)',
  'quantile(0.9, gauge_temp)',
  'topk(2, gauge_temp)',
  'bottomk(1, gauge_temp)',
  'group by (job) (gauge_temp)',
  'gauge_temp > 25',
  'gauge_temp > bool 25',
  '30 < gauge_temp',
  '2 * gauge_temp + 1',
  '-gauge_temp',
  'gauge_temp % 7',
  'gauge_temp ^ 0.5',
  'abs(-gauge_temp)',
  'clamp_max(gauge_temp, 22)',
  'clamp(gauge_temp, 18, 30)',
  'round(gauge_temp, 0.5)',
  'ceil(gauge_temp)',
  'sqrt(gauge_temp)',
  'ln(gauge_temp)',
  'events_total{stage="failed"} / ignoring(stage) events_total{stage="received"}',
  'sum by (dataset) (events_total{stage="failed"}) / on(dataset) sum by (dataset) (events_total)',
  '100 * sum by (dataset) (rate(events_total{stage="failed"}[5m])) / sum by (dataset) (rate(events_total[5m]))',
  'gauge_temp * on(dataset) group_left(unit) dataset_info',
  'gauge_temp and on(dataset) events_total{stage="failed"}',
  'gauge_temp unless on(dataset) gauge_temp > 25',
  'gauge_temp or on(dataset) dataset_info',
  'gauge_temp == bool on(dataset) gauge_temp',
  'histogram_quantile(0.9, sum by (le) (rate(req_duration_bucket[5m])))',
  'histogram_quantile(0.5, sum by (le, dataset) (rate(req_duration_bucket[5m])))',
  'max_over_time(gauge_temp[10m])',
  'min_over_time(gauge_temp[10m])',
  'avg_over_time(gauge_temp[10m])',
  'sum_over_time(gauge_temp[10m])',
  'count_over_time(gauge_temp[10m])',
  'last_over_time(gauge_temp[10m])',
  'stddev_over_time(gauge_temp[10m])',
  'quantile_over_time(0.7, gauge_temp[10m])',
  'present_over_time(gauge_temp[10m])',
  'absent_over_time(gauge_temp{dataset="zzz"}[10m])',
  'max_over_time(max by (job) (gauge_temp)[15m:5m])',
  'avg_over_time(avg by (job) (gauge_temp)[20m:1m])',
  'sum_over_time(sum by (job) (events_total)[10m:30s]) / avg_over_time(avg by (job) (gauge_temp)[10m:30s])',
  'rate(sum by (dataset) (events_total)[10m:1m])',
  'quantile(0.9, max_over_time(gauge_temp[10m]))',
  'gauge_temp offset 5m',
  'rate(events_total[5m] offset 10m)',
  'time() - 100',
  'timestamp(gauge_temp)',
  'timestamp(sum(gauge_temp))',
  'rate((events_total[5m]))',
  'scalar(sum(gauge_temp))',
  'vector(1)',
  'absent(nonexistent_metric{job="x"})',
  'absent(gauge_temp)',
  'label_replace(gauge_temp, "ds", "ds-$1", "dataset", "(.*)")',
  'label_join(gauge_temp, "both", "/", "job", "dataset")',
  'sort_desc(gauge_temp)',
  'count_values("unit", dataset_info)',
  'sum(rate(events_total[5m])) > 1',
  // Go's regexp (RE2) syntax, which JavaScript's does not read: inline flags, \z.
  'gauge_temp{dataset=~"(?i)A|C"}',
  'gauge_temp{dataset!~`b\\z`}',
  'label_replace(gauge_temp, "first", "${ds}-$2", "dataset", "(?P<ds>[a-c])")',
];

/** Expressions that lead the column path to its edges: gaps, shared keys, groups whose order changes. */
const COLUMN_EDGES = [
  'avg by (dataset) (rate(events_total[5m]))',
  'min by (stage) (increase(events_total[2m])) - max by (stage) (delta(events_total[2m]))',
  'count by (job) (gauge_temp > 25) * 2',
  'sum by (dataset) (gauge_temp) == bool on(dataset) sum by (dataset) (gauge_temp)',
  'events_total{stage="failed"} > ignoring(stage) events_total{stage="received"} / 10',
  'histogram_quantile(2 * 0.25, sum by (le, dataset) (rate(req_duration_bucket[1m] offset 10m)))',
  'gauge_temp / on(job) gauge_temp',
  'rate({__name__=~"events_total|gauge_temp", dataset="c"}[5m])',
];

/**
 * Four series, three groups (g): "2" is b's first, d's later, so in the second half the groups come
 * as 1, 3, 2. Added in that order the sum of the groups is 1 ((1e16 - 1e16) + 1), in the order of
 * the first half 0 ((1e16 + 1) - 1e16 rounds away the 1).
 */
function groupsChangingOrder(): StoredSeries[] {
  const times = Array.from({ length: 241 }, (_, i) => START + i * STEP);
  const half = START + 30 * 60_000;
  const series = (g: string, name: string, value: number, keep: (t: number) => boolean): StoredSeries => {
    const kept = times.filter(keep);
    return { labels: { __name__: 'x', g, name }, times: kept, values: kept.map(() => value) };
  };
  return [series('1', 'a', 1e16, () => true), series('2', 'b', 1, (t) => t < half), series('3', 'c', -1e16, () => true), series('2', 'd', 1, (t) => t >= half + LOOKBACK_MS)];
}

describe('range queries over every step at once (the column path)', () => {
  it.each([...EXPRESSIONS, ...COLUMN_EDGES])('%s answers as evaluating each step in turn does', async (expression) => {
    const stepped = rangeQuery(source, expression, START, END, STEP, { stepByStep: true });
    const columns = rangeQuery(source, expression, START, END, STEP);
    const [steppedOutcome, columnsOutcome] = await Promise.allSettled([stepped, columns]);
    // The same series, times and values (toEqual tells 0 from -0, and NaN matches only NaN), or the same refusal.
    expect(columnsOutcome).toEqual(steppedOutcome);
  });

  it('extrapolates as the step path where samples are unevenly spaced, counters start near zero or reset, and steps fall between milliseconds', async () => {
    const next = random(7);
    const series: StoredSeries[] = ['a', 'b', 'c', 'd'].map((k, n) => {
      const times: number[] = [];
      for (let t = START + Math.floor(next() * 5_000); t <= END; t += 5_000 + Math.floor(next() * 20_000)) times.push(t);
      // a from 0, b from a value near what a window gains (the zero cut falls near the range's start), c resets, d is a gauge.
      let value = n === 1 ? 40 : 0;
      const values = times.map((_, i) => (n === 2 && i % 50 === 49 ? (value = 1) : n === 3 ? 10 - next() * 20 : (value += Math.floor(next() * 4))));
      return { labels: { __name__: 'c', k }, times, values };
    });
    // e: minute after minute, samples 20 s and 50 s into it, with two more between every other
    // minute: windows the same distances from their edges, extrapolated differently (the
    // samples' average spacing differs).
    const minutes = Array.from({ length: 60 }, (_, m) => START + m * 60_000);
    const eTimes = minutes.flatMap((minute, m) => (m % 2 ? [20_000, 30_000, 40_000, 50_000] : [20_000, 50_000]).map((at) => minute + at));
    series.push({ labels: { __name__: 'c', k: 'e' }, times: eTimes, values: eTimes.map((_, i) => i * 3) });
    const uneven = memorySource(series);
    for (const expression of ['sum(rate(c[1m]))', 'increase(c[90s])', 'sum by (k) (delta(c[2m]))', 'rate(c[45s] offset 10s)']) {
      for (const step of [STEP, 7_777.5, 60_000]) {
        const stepped = await rangeQuery(uneven, expression, START + 0.25, END, step, { stepByStep: true });
        expect(stepped.result.length).toBeGreaterThan(0);
        expect(await rangeQuery(uneven, expression, START + 0.25, END, step)).toEqual(stepped);
      }
    }
  });

  it('moves windows sample by sample where samples are evenly spaced, and finds them again where the spacing breaks', async () => {
    const grid = (from: number, every: number) => Array.from({ length: Math.floor((END - from) / every) + 1 }, (_, i) => from + i * every);
    const counter = (times: number[], from: number) => times.map((_, i) => from + i * 3);
    const missing = grid(START, STEP).filter((_, i) => i !== 100);
    const late = grid(START, STEP).map((t, i) => (i === 150 ? t + 1 : t));
    const lateStart = grid(START + 20 * 60_000, STEP);
    const extra = [...grid(START, STEP), START + 120 * STEP + 3_000].sort((a, b) => a - b);
    const series: StoredSeries[] = [
      { labels: { __name__: 'x', k: 'missing' }, times: missing, values: counter(missing, 1_000) },
      // A millisecond late at sample 150, a reset at 200.
      { labels: { __name__: 'x', k: 'late' }, times: late, values: late.map((_, i) => (i < 200 ? 500 + i * 7 : (i - 200) * 7)) },
      // From near zero: the range's start is cut where the counter would have been zero.
      { labels: { __name__: 'x', k: 'from-zero' }, times: lateStart, values: counter(lateStart, 2) },
      // One more 3 s after sample 120: in the window of a step 5 s after the grid.
      { labels: { __name__: 'x', k: 'extra' }, times: extra, values: counter(extra, 100) },
      { labels: { __name__: 'x', k: 'every-30s' }, times: grid(START + 5_000, 30_000), values: counter(grid(START + 5_000, 30_000), 10) },
    ];
    const even = memorySource(series);
    for (const expression of ['rate(x[5m])', 'increase(x[1m])', 'delta(x[50s])', 'sum(rate(x[2m] offset 30s))']) {
      for (const step of [STEP, 30_000, 45_000, 60_000]) {
        for (const start of [START, START + 5_000]) {
          const stepped = await rangeQuery(even, expression, start, END, step, { stepByStep: true });
          expect(stepped.result.length).toBeGreaterThan(0);
          expect(await rangeQuery(even, expression, start, END, step)).toEqual(stepped);
        }
      }
    }
  });

  it('answers a series two selectors share (an error ratio) as the step path, per function, range and offset', async () => {
    const times = Array.from({ length: 240 }, (_, i) => START + i * STEP).filter((_, i) => i !== 90);
    const series: StoredSeries[] = ['200', '500', '503'].map((code, n) => ({
      labels: { __name__: 'requests_total', code },
      times,
      // 503 resets at sample 120; each grows at its own pace.
      values: times.map((_, i) => (n === 2 && i >= 120 ? i - 120 : 1_000 * n + i * (n + 2))),
    }));
    const shared = memorySource(series);
    for (const expression of [
      'sum(rate(requests_total{code=~"5.."}[5m])) / sum(rate(requests_total[5m]))',
      'rate(requests_total{code="503"}[5m]) / rate(requests_total[1m])',
      'increase(requests_total{code="503"}[2m]) - rate(requests_total[2m])',
      'sum by (code) (rate(requests_total{code!="200"}[5m] offset 1m)) / sum by (code) (rate(requests_total[5m]))',
    ]) {
      const stepped = await rangeQuery(shared, expression, START, END, STEP, { stepByStep: true });
      expect(stepped.result.length).toBeGreaterThan(0);
      expect(await rangeQuery(shared, expression, START, END, STEP)).toEqual(stepped);
    }
  });

  it('adds groups up in the order each step lists them, also when that order changes', async () => {
    const groups = memorySource(groupsChangingOrder());
    for (const expression of ['sum(sum by (g) (x))', 'sum(x / on(g, name) x * on(g, name) x) + sum(sum by (g) (x) / on(g) x)']) {
      const stepped = await rangeQuery(groups, expression, START, END, STEP, { stepByStep: true });
      expect(await rangeQuery(groups, expression, START, END, STEP)).toEqual(stepped);
    }
    const { result } = await rangeQuery(groups, 'sum(sum by (g) (x))', END - 60_000, END, STEP);
    expect(Array.from(result[0]!.values)).toEqual([1, 1, 1, 1, 1]);
  });
});

const prometheusBinary = findBinary('prometheus');
const promtool = findBinary('promtool');
const maybe = describeWhenInstalled(prometheusBinary && promtool, 'prometheus');

function close(a: number, b: number): boolean {
  if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) && Number.isNaN(b);
  if (!Number.isFinite(a) || !Number.isFinite(b)) return a === b;
  return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
}

type PromSeries = { metric: Record<string, string>; values: [number, string][] };

maybe(`the evaluator against Prometheus ${prometheusBinary ? 'found' : 'not installed: apt-get install -y prometheus'}, on the same samples`, () => {
  let prometheus: RunningPrometheus;
  beforeAll(async () => {
    prometheus = await startPrometheusWith(prometheusBinary!, promtool!, SAMPLES);
  }, 60_000);
  afterAll(async () => {
    await prometheus?.stop();
  });

  it.each(EXPRESSIONS)('%s gives the same series and values over 40 minutes at 1-minute steps', async (expression) => {
    const start = END - 40 * 60_000;
    const search = new URLSearchParams({ query: expression, start: String(start / 1000), end: String(END / 1000), step: '60' });
    const answer = (await (await fetch(`${prometheus.url}/api/v1/query_range?${search.toString()}`)).json()) as { status: string; data: { result: PromSeries[] }; error?: string };
    expect(answer.error).toBeUndefined();
    const theirs = new Map(answer.data.result.map((series) => [JSON.stringify(Object.entries(series.metric).sort()), series]));
    const ours = await rangeQuery(source, expression, start, END, 60_000);
    expect(ours.result.map((series) => JSON.stringify(Object.entries(series.labels).sort())).sort()).toEqual([...theirs.keys()].sort());
    for (const series of ours.result) {
      const their = theirs.get(JSON.stringify(Object.entries(series.labels).sort()))!;
      expect(Array.from(series.times, (t) => t / 1000)).toEqual(their.values.map(([t]) => t));
      const mismatches = Array.from(series.values, (value, i) => [value, Number(their.values[i]![1])] as const).filter(([a, b]) => !close(a, b));
      expect(mismatches).toEqual([]);
    }
    // A table of empty answers would agree too: most expressions select something.
    if (!expression.startsWith('absent')) expect(ours.result.length).toBeGreaterThan(0);
  });
});
