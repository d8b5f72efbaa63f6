// A corpus for comparing the embedded PromQL evaluator with a real Prometheus: two hours of
// generated samples (counters with resets, series born and gone stale, unevenly spaced gauges,
// NaN and infinite values, a classic histogram, info metrics) and the expressions asked of them,
// built from every function, aggregation, operator and modifier the evaluator covers.
import type { StoredSeries } from '../../src/platform/promql/evaluator.js';

const HOUR = 3_600_000;
const STEP = 15_000;

/** A deterministic pseudo-random sequence (the same samples every run). */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/** Two hours of samples ending `end` (a whole hour); times are whole seconds, as OpenMetrics text carries them exactly. */
export function corpusSamples(end: number): StoredSeries[] {
  const start = end - 2 * HOUR;
  const next = random(2026);
  const grid: number[] = [];
  for (let t = start; t <= end; t += STEP) grid.push(t);
  const series: StoredSeries[] = [];
  const add = (labels: Record<string, string>, times: number[], values: number[]) => series.push({ labels: { job: 'corpus', ...labels }, times, values });

  for (const instance of ['i1', 'i2']) {
    for (const code of ['200', '500']) {
      let value = 0;
      const values = grid.map((_, i) => {
        // i2's errors restart twice (a process restart), the second time from a value above zero.
        if (instance === 'i2' && code === '500' && (i === 200 || i === 350)) value = i === 350 ? 2 : 0;
        value += Math.floor(next() * (code === '200' ? 20 : 3));
        return value;
      });
      add({ __name__: 'http_requests_total', instance, code }, grid, values);
    }
  }
  // i3 is born an hour in and stops 20 minutes before the end: it goes stale 5 minutes later.
  const i3 = grid.filter((t) => t >= start + HOUR && t <= end - 20 * 60_000);
  add(
    { __name__: 'http_requests_total', instance: 'i3', code: '200' },
    i3,
    i3.map((_, i) => i * 4),
  );

  // Gauges: a random walk below and above zero, fractions, a constant, and one sampled at uneven whole seconds.
  let walk = 0;
  add(
    { __name__: 'temperature', instance: 'i1', room: 'a' },
    grid,
    grid.map(() => (walk += Math.round((next() - 0.5) * 40) / 10)),
  );
  add(
    { __name__: 'temperature', instance: 'i2', room: 'a' },
    grid,
    grid.map(() => 15 + Math.round(next() * 2000) / 100),
  );
  add(
    { __name__: 'temperature', instance: 'i2', room: 'b' },
    grid,
    grid.map(() => 3),
  );
  const uneven: number[] = [];
  for (let t = start + 2_000; t <= end; t += 1_000 * (5 + Math.floor(next() * 36))) uneven.push(t);
  add(
    { __name__: 'temperature', instance: 'i1', room: 'b' },
    uneven,
    uneven.map(() => Math.round(next() * 300) / 10 - 5),
  );

  for (const queue of ['q1', 'q2'])
    add(
      { __name__: 'queue_depth', instance: 'i1', queue },
      grid,
      grid.map(() => Math.floor(next() * (queue === 'q1' ? 4 : 11))),
    );
  add(
    { __name__: 'last_seen_seconds', instance: 'i1' },
    grid,
    grid.map((t) => Math.floor(t / 1000 - next() * 40 * 86_400)),
  );
  add(
    { __name__: 'weird', kind: 'nan' },
    grid,
    grid.map((_, i) => (i % 7 === 3 ? NaN : i % 5)),
  );
  add(
    { __name__: 'weird', kind: 'inf' },
    grid,
    grid.map((_, i) => (i % 11 === 5 ? Infinity : i % 13 === 6 ? -Infinity : 1 - (i % 3))),
  );

  // A classic histogram per instance: cumulative buckets, their sum and count.
  const bounds = ['0.1', '0.5', '1', '5', '+Inf'];
  for (const instance of ['i1', 'i2']) {
    const counts = bounds.map(() => [] as number[]);
    const sums: number[] = [];
    let sum = 0;
    for (let i = 0; i < grid.length; i += 1) {
      const band = [0, 0, 0, 0, 0];
      for (let o = Math.floor(next() * 8); o > 0; o -= 1) {
        const b = Math.floor(next() * 5);
        band[b]! += 1;
        sum += [0.05, 0.3, 0.7, 3, 8][b]!;
      }
      let running = 0;
      bounds.forEach((_, b) => {
        running += band[b]!;
        counts[b]!.push((counts[b]![i - 1] ?? 0) + running);
      });
      sums.push(Math.round(sum * 100) / 100);
    }
    bounds.forEach((le, b) => add({ __name__: 'latency_seconds_bucket', instance, le }, grid, counts[b]!));
    add({ __name__: 'latency_seconds_sum', instance }, grid, sums);
    add({ __name__: 'latency_seconds_count', instance }, grid, counts[bounds.length - 1]!);
    add(
      { __name__: 'build_info', instance, version: instance === 'i1' ? '1.0' : '1.1' },
      grid,
      grid.map(() => 1),
    );
  }
  return series;
}

const RANGE_FUNCTIONS = [
  'rate',
  'irate',
  'increase',
  'delta',
  'idelta',
  'deriv',
  'changes',
  'resets',
  'avg_over_time',
  'min_over_time',
  'max_over_time',
  'sum_over_time',
  'count_over_time',
  'stddev_over_time',
  'stdvar_over_time',
  'last_over_time',
  'present_over_time',
  'absent_over_time',
];
const MATH_FUNCTIONS = ['abs', 'ceil', 'floor', 'exp', 'sqrt', 'ln', 'log2', 'log10', 'sgn'];
const DATE_FUNCTIONS = ['day_of_month', 'day_of_week', 'day_of_year', 'days_in_month', 'hour', 'minute', 'month', 'year'];
const AGGREGATIONS = ['sum', 'avg', 'min', 'max', 'count', 'group', 'stddev', 'stdvar'];
const ARITHMETIC = ['+', '-', '*', '/', '%', '^', 'atan2'];
const COMPARISONS = ['==', '!=', '>', '<', '>=', '<='];
const SET_OPERATORS = ['and', 'or', 'unless'];

/** The expressions, each once, in a stable order. */
export function corpusExpressions(): string[] {
  const out: string[] = [];
  const ranged = ['http_requests_total', 'temperature', 'queue_depth', 'latency_seconds_bucket{le="1"}'];
  for (const fn of RANGE_FUNCTIONS) {
    for (const selector of ranged) for (const range of ['1m', '5m']) out.push(`${fn}(${selector}[${range}])`);
    out.push(`${fn}(temperature{room="b"}[45s])`, `${fn}(http_requests_total[10m] offset 7m)`, `${fn}(weird[3m])`);
  }
  out.push('absent_over_time(nonexistent{job="x"}[5m])', 'present_over_time(http_requests_total{instance="i3"}[2m])');
  for (const selector of ['temperature', 'queue_depth']) {
    for (const range of ['2m', '10m']) for (const ahead of ['60', '-300']) out.push(`predict_linear(${selector}[${range}], ${ahead})`);
    for (const q of ['0', '0.25', '0.5', '0.9', '1', '-1', '2']) out.push(`quantile_over_time(${q}, ${selector}[5m])`);
  }

  const inputs = ['temperature', '-temperature', 'rate(http_requests_total[5m])', 'weird'];
  for (const fn of MATH_FUNCTIONS) for (const input of inputs) out.push(`${fn}(${input})`);
  for (const input of ['temperature', 'weird', 'rate(http_requests_total[5m])']) {
    out.push(`round(${input})`, `round(${input}, 0.5)`, `round(${input}, 3)`, `clamp(${input}, -1, 5)`, `clamp(${input}, 5, -1)`, `clamp_min(${input}, 0)`, `clamp_max(${input}, 2)`);
  }
  for (const fn of DATE_FUNCTIONS) out.push(`${fn}()`, `${fn}(last_seen_seconds)`);
  out.push(
    'time()',
    'pi()',
    'vector(1)',
    'vector(time())',
    'scalar(temperature{room="b", instance="i2"})',
    'scalar(temperature)',
    'scalar(sum(queue_depth))',
    'timestamp(temperature)',
    'timestamp(temperature offset 3m)',
    'timestamp(sum(temperature))',
    'timestamp(http_requests_total{instance="i3"})',
    'sort(temperature)',
    'sort_desc(rate(http_requests_total[5m]))',
    'sort(weird)',
    'absent(nonexistent)',
    'absent(nonexistent{job="x", instance=~"i.*"})',
    'absent(temperature)',
    'absent(http_requests_total{instance="i3"})',
    'label_replace(temperature, "host", "$1-x", "instance", "i(.*)")',
    'label_replace(temperature, "instance", "", "instance", "i1")',
    'label_replace(temperature, "room", "$2", "room", "(.)")',
    'label_replace(temperature, "r", "${1}${1}", "room", "(?P<x>[ab])")',
    'label_replace(http_requests_total, "class", "${1}xx", "code", "([0-9])..")',
    'label_join(temperature, "both", "/", "instance", "room")',
    'label_join(temperature, "both", "", "missing")',
    'label_join(http_requests_total, "code", "-", "code", "instance", "job")',
    'label_replace(temperature, "r", "$1x", "room", "(.)")',
    'label_replace(temperature, "r", "$$1-${1}-$", "room", "(.)")',
    'label_replace(temperature, "r", "${01}${x}", "room", "(?P<x>.)")',
    'label_replace(temperature, "1bad", "x", "room", ".*")',
    'label_join(temperature, "bad-name", ",", "room")',
    'label_join(temperature, "both", ",", "room", "bad-name")',
    'sort_desc(weird)',
  );

  const aggregated = ['http_requests_total', 'rate(http_requests_total[5m])', 'temperature'];
  for (const op of AGGREGATIONS) {
    for (const input of aggregated) for (const grouping of ['', ' by (instance)', ' without (instance)', ' by (code, room)']) out.push(`${op}${grouping} (${input})`);
  }
  out.push('sum(weird)', 'avg(weird)', 'min(weird)', 'max(weird)', 'stddev(weird)', 'count by (kind) (weird)');
  for (const input of ['temperature', 'rate(http_requests_total[5m])']) {
    for (const grouping of ['', ' by (instance)']) {
      for (const k of ['1', '2']) out.push(`topk${grouping} (${k}, ${input})`, `bottomk${grouping} (${k}, ${input})`);
      for (const q of ['0.5', '0.9', '0', '1']) out.push(`quantile${grouping} (${q}, ${input})`);
    }
  }
  out.push(
    'count_values("value", queue_depth)',
    'count_values by (queue) ("value", queue_depth)',
    'count_values("t", round(temperature))',
    'topk(scalar(count(temperature)) - 2, temperature)',
    'sum(http_requests_total) by (instance)',
    'avg without (code) (rate(http_requests_total[1m])) * 60',
    'quantile(0.5, weird)',
    'quantile_over_time(0.5, weird[5m])',
    'topk(1, weird)',
    'bottomk(2, weird)',
    'topk(1, build_info)',
    'bottomk(1, build_info)',
    'topk(3, queue_depth)',
    'bottomk by (instance) (1, temperature)',
  );

  for (const op of ARITHMETIC) {
    out.push(
      `temperature ${op} 2`,
      `3 ${op} queue_depth`,
      `rate(http_requests_total[5m]) ${op} rate(http_requests_total[10m])`,
      `http_requests_total{code="500"} ${op} ignoring(code) http_requests_total{code="200"}`,
      `2 ${op} 3`,
      `weird ${op} weird`,
      `1 ${op} weird`,
    );
  }
  for (const op of COMPARISONS) {
    out.push(
      `temperature ${op} 10`,
      `2 ${op} queue_depth`,
      `queue_depth{queue="q1"} ${op} on(instance) queue_depth{queue="q2"}`,
      `http_requests_total{code="500"} ${op} ignoring(code) http_requests_total{code="200"} / 10`,
      `temperature ${op} bool 10`,
      `2 ${op} bool queue_depth`,
      `queue_depth{queue="q1"} ${op} bool on(instance) queue_depth{queue="q2"}`,
      `1 ${op} bool 2`,
      `weird ${op} bool 1`,
    );
  }
  for (const op of SET_OPERATORS) {
    out.push(
      `temperature ${op} temperature > 10`,
      `http_requests_total ${op} on(instance) temperature{room="a"}`,
      `http_requests_total{code="500"} ${op} ignoring(code) http_requests_total{code="200"} > 500`,
      `queue_depth ${op} on(queue) (queue_depth > 5)`,
    );
  }
  out.push(
    'http_requests_total * on(instance) group_left(version) build_info',
    'http_requests_total * on(instance) group_left build_info',
    'build_info * on(instance) group_right(version) http_requests_total',
    'rate(http_requests_total[5m]) / on(instance) group_left sum by (instance) (rate(http_requests_total[5m]))',
    'http_requests_total > on(instance) group_left(version) build_info',
    'http_requests_total > bool ignoring(code) group_left build_info',
    'sum by (instance) (rate(http_requests_total{code="500"}[5m])) / sum by (instance) (rate(http_requests_total[5m]))',
    '100 * sum by (instance) (rate(http_requests_total{code="500"}[5m])) / ignoring(code) sum by (instance) (rate(http_requests_total[5m]))',
    'latency_seconds_sum / latency_seconds_count',
    'rate(latency_seconds_sum[5m]) / rate(latency_seconds_count[5m])',
    '1 + 2 * 3 ^ 2 % 5',
    '-2 ^ 2',
    '2 ^ 3 ^ 2',
    '(1 + 2) * -temperature',
    '+temperature - -1',
    '(-1) ^ weird',
    'weird ^ 0',
    'temperature + on(instance, room) temperature offset 5m',
    'http_requests_total + ignoring(code) group_left http_requests_total{code="200"}',
  );

  for (const q of ['0', '0.5', '0.9', '0.99', '1', '-0.5', '1.5']) {
    out.push(`histogram_quantile(${q}, rate(latency_seconds_bucket[5m]))`, `histogram_quantile(${q}, sum by (le) (rate(latency_seconds_bucket[10m])))`);
  }
  out.push('histogram_quantile(0.5, latency_seconds_bucket)', 'histogram_quantile(0.9, latency_seconds_bucket{le=~"0.1|1|\\\\+Inf"})', 'histogram_quantile(0.5, latency_seconds_bucket{le!="+Inf"})');

  out.push(
    'temperature offset 5m',
    'temperature offset 1h',
    'temperature offset -5m',
    'rate(http_requests_total[5m] offset 30m)',
    'temperature @ start()',
    'temperature @ end()',
    'rate(http_requests_total[5m] @ end())',
    'sum(rate(http_requests_total[5m] @ start()))',
    'max_over_time(temperature[10m] @ end() offset 5m)',
    'max_over_time(rate(http_requests_total[1m])[10m:1m])',
    'max_over_time(rate(http_requests_total[1m])[10m:])',
    'avg_over_time(temperature[15m:30s])',
    'rate(sum by (instance) (http_requests_total)[10m:1m])',
    'min_over_time(sum(temperature)[5m:15s] offset 2m)',
    'sum_over_time(queue_depth[7m:1m]) / count_over_time(queue_depth[7m:1m])',
    'stddev_over_time(deriv(temperature[2m])[20m:2m])',
    'last_over_time(temperature[5m:1m] @ end())',
    'quantile_over_time(0.5, (temperature * 2)[10m:1m])',
    'max_over_time(max_over_time(temperature[1m])[5m:1m])',
    'rate((http_requests_total[5m]))',
    'count({__name__=~"http_requests_total|temperature", instance="i1"})',
    'sum by (__name__) ({instance="i2"})',
    'temperature{room=~"(?i)A"}',
    'http_requests_total{code!~"2.."}',
    'temperature{instance!="i1", room=~"a|b"}',
    // Series of two names that are alike once a function or an operator drops the name.
    'rate({__name__=~"latency_seconds_sum|latency_seconds_count"}[5m])',
    'sum(rate({__name__=~"latency_seconds_sum|latency_seconds_count"}[5m]))',
    '-{__name__=~"latency_seconds_sum|latency_seconds_count"}',
    'sum({__name__=~"latency_seconds_sum|latency_seconds_count"} * 2)',
    '{__name__=~"latency_seconds_sum|latency_seconds_count"} > bool 10',
    '{__name__=~"latency_seconds_sum|latency_seconds_count"} > 10',
    'last_over_time({__name__=~"latency_seconds_sum|latency_seconds_count"}[1m])',
    'abs({__name__=~"temperature|queue_depth"})',
  );
  return [...new Set(out)];
}
