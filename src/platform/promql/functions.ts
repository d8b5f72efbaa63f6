// The function library, evaluated at one time (the step path); the column path computes
// rate/increase/delta and histogram_quantile over every step itself.
import { compileLabelPattern, type LabelPattern } from './label-pattern.js';
import { byValue, maximum, mean, minimum, quantile, sum, variance } from './aggregations.js';
import { extrapolatedChange, resetCountsOf } from './counter-changes.js';
import { bucketQuantile, LE, parseBound } from './histograms.js';
import { dropLabels, NAME, signature, withoutName } from './labels.js';
import { samplesOf, UnsupportedQueryError, vectorResult, type Labels, type Sample, type Value, type Window } from './model.js';
import type { SelectorNode } from './nodes.js';
import type { PromNode } from './parser.js';

/** What a function reads of its arguments at one time. */
export interface ArgumentReader {
  vector(node: PromNode, t: number): Sample[];
  /** A range vector, with the range it covers (ms). */
  matrix(node: PromNode, t: number): { series: Window[]; rangeStart: number; rangeEnd: number };
  scalar(node: PromNode, t: number): number;
  text(node: PromNode, t: number): string;
  /** The newest sample of each series within the lookback; its time (in seconds) instead of its value when `times` is set. */
  instantSelect(node: SelectorNode, t: number, times?: boolean): Sample[];
}

type PromFunction = (args: PromNode[], t: number, ev: ArgumentReader) => Value;

/** A function of each element's value; the metric name is dropped, as in Prometheus. */
const elementwise =
  (apply: (value: number, args: PromNode[], t: number, ev: ArgumentReader) => number): PromFunction =>
  (args, t, ev) =>
    vectorResult(ev.vector(args[0]!, t).map((sample) => ({ labels: withoutName(sample.labels), value: apply(sample.value, args, t, ev) })));

/** A function over each series' samples in the range; series without samples are left out. */
const overTime =
  (reduce: (values: Float64Array, times: Float64Array) => number, keepName = false): PromFunction =>
  (args, t, ev) => {
    const { series } = ev.matrix(args[args.length - 1]!, t);
    const out: Sample[] = [];
    for (const s of series) {
      if (s.end <= s.start) continue;
      const { values, times } = samplesOf(s);
      out.push({ labels: keepName ? s.labels : withoutName(s.labels), value: reduce(values, times) });
    }
    return vectorResult(out);
  };

function extrapolated(isCounter: boolean, isRate: boolean): PromFunction {
  return (args, t, ev) => {
    const { series, rangeStart, rangeEnd } = ev.matrix(args[0]!, t);
    const out: Sample[] = [];
    for (const s of series) {
      if (s.end - s.start < 2) continue;
      out.push({ labels: withoutName(s.labels), value: extrapolatedChange(s.times, s.values, s.start, s.end, rangeStart, rangeEnd, isCounter ? resetCountsOf(s.values) : undefined, isRate) });
    }
    return vectorResult(out);
  };
}

/** irate and idelta: from the last two samples. */
function instantChange(isRate: boolean): PromFunction {
  return overTimePairs((values, times) => {
    const n = values.length;
    const last = values[n - 1]!;
    const previous = values[n - 2]!;
    const change = isRate && last < previous ? last : last - previous;
    return isRate ? change / ((times[n - 1]! - times[n - 2]!) / 1000) : change;
  });
}

function overTimePairs(reduce: (values: Float64Array, times: Float64Array) => number): PromFunction {
  return (args, t, ev) => {
    const { series } = ev.matrix(args[0]!, t);
    const out: Sample[] = [];
    for (const s of series) {
      if (s.end - s.start < 2) continue;
      const { values, times } = samplesOf(s);
      out.push({ labels: withoutName(s.labels), value: reduce(values, times) });
    }
    return vectorResult(out);
  };
}

/** Least-squares slope and intercept of the samples, time relative to `origin` (seconds). */
function regression(values: Float64Array, times: Float64Array, origin: number): { slope: number; intercept: number } {
  let n = 0;
  let sumX = 0;
  let sumY = 0;
  let sumXY = 0;
  let sumX2 = 0;
  for (let i = 0; i < values.length; i += 1) {
    const x = (times[i]! - origin) / 1000;
    n += 1;
    sumX += x;
    sumY += values[i]!;
    sumXY += x * values[i]!;
    sumX2 += x * x;
  }
  const covariance = sumXY - (sumX * sumY) / n;
  const varianceX = sumX2 - (sumX * sumX) / n;
  const slope = covariance / varianceX;
  return { slope, intercept: sumY / n - (slope * sumX) / n };
}

const dateFunction = (read: (date: Date) => number): PromFunction => {
  return (args, t, ev) => {
    const samples = args.length === 0 ? [{ labels: {}, value: t / 1000 }] : ev.vector(args[0]!, t);
    return vectorResult(samples.map((sample) => ({ labels: withoutName(sample.labels), value: read(new Date(sample.value * 1000)) })));
  };
};

export const FUNCTIONS: Record<string, PromFunction> = {
  rate: extrapolated(true, true),
  increase: extrapolated(true, false),
  delta: extrapolated(false, false),
  irate: instantChange(true),
  idelta: instantChange(false),
  changes: overTime((values) => values.slice(1).filter((value, i) => value !== values[i] && !(Number.isNaN(value) && Number.isNaN(values[i]!))).length),
  resets: overTime((values) => values.slice(1).filter((value, i) => value < values[i]!).length),
  deriv: overTimePairs((values, times) => regression(values, times, times[0]!).slope),
  predict_linear: (args, t, ev) => {
    const { series, rangeEnd } = ev.matrix(args[0]!, t);
    const seconds = ev.scalar(args[1]!, t);
    return vectorResult(
      series
        .filter((s) => s.end - s.start >= 2)
        .map((s) => {
          const { values, times } = samplesOf(s);
          const { slope, intercept } = regression(values, times, rangeEnd);
          return { labels: withoutName(s.labels), value: slope * seconds + intercept };
        }),
    );
  },
  avg_over_time: overTime(mean),
  min_over_time: overTime(minimum),
  max_over_time: overTime(maximum),
  sum_over_time: overTime(sum),
  count_over_time: overTime((values) => values.length),
  last_over_time: overTime((values) => values[values.length - 1]!, true),
  present_over_time: overTime(() => 1),
  stddev_over_time: overTime((values) => Math.sqrt(variance(values))),
  stdvar_over_time: overTime(variance),
  quantile_over_time: (args, t, ev) => {
    const q = ev.scalar(args[0]!, t);
    return overTime((values) => quantile(q, values))(args, t, ev);
  },
  abs: elementwise(Math.abs),
  ceil: elementwise(Math.ceil),
  floor: elementwise(Math.floor),
  exp: elementwise(Math.exp),
  sqrt: elementwise(Math.sqrt),
  ln: elementwise(Math.log),
  log2: elementwise(Math.log2),
  log10: elementwise(Math.log10),
  sgn: elementwise(Math.sign),
  round: elementwise((value, args, t, ev) => {
    const inverse = 1 / (args[1] ? ev.scalar(args[1], t) : 1);
    return Math.floor(value * inverse + 0.5) / inverse;
  }),
  clamp: (args, t, ev) => {
    const [low, high] = [ev.scalar(args[1]!, t), ev.scalar(args[2]!, t)];
    // Bounds that cross select nothing (as in Prometheus).
    if (high < low) return vectorResult([]);
    return vectorResult(ev.vector(args[0]!, t).map((sample) => ({ labels: withoutName(sample.labels), value: Math.max(low, Math.min(high, sample.value)) })));
  },
  clamp_min: elementwise((value, args, t, ev) => Math.max(ev.scalar(args[1]!, t), value)),
  clamp_max: elementwise((value, args, t, ev) => Math.min(ev.scalar(args[1]!, t), value)),
  timestamp: (args, t, ev) => {
    // Of a selector, each sample's own time; of any other expression, the evaluation time.
    const node = args[0]!;
    const samples = node.kind === 'selector' ? ev.instantSelect(node, t, true) : ev.vector(node, t).map((sample) => ({ labels: sample.labels, value: t / 1000 }));
    return vectorResult(samples.map((sample) => ({ labels: withoutName(sample.labels), value: sample.value })));
  },
  time: (_args, t) => ({ kind: 'scalar', value: t / 1000 }),
  pi: () => ({ kind: 'scalar', value: Math.PI }),
  vector: (args, t, ev) => vectorResult([{ labels: {}, value: ev.scalar(args[0]!, t) }]),
  scalar: (args, t, ev) => {
    const samples = ev.vector(args[0]!, t);
    return { kind: 'scalar', value: samples.length === 1 ? samples[0]!.value : NaN };
  },
  absent: (args, t, ev) => (ev.vector(args[0]!, t).length > 0 ? vectorResult([]) : vectorResult([{ labels: absentLabels(args[0]!), value: 1 }])),
  absent_over_time: (args, t, ev) => (ev.matrix(args[0]!, t).series.some((s) => s.end > s.start) ? vectorResult([]) : vectorResult([{ labels: absentLabels(args[0]!), value: 1 }])),
  sort: (args, t, ev) => vectorResult(byValue(ev.vector(args[0]!, t), 1)),
  sort_desc: (args, t, ev) => vectorResult(byValue(ev.vector(args[0]!, t), -1)),
  histogram_quantile: (args, t, ev) => {
    const q = ev.scalar(args[0]!, t);
    const groups = new Map<string, { labels: Labels; buckets: { upper: number; count: number }[] }>();
    for (const sample of ev.vector(args[1]!, t)) {
      const upper = sample.labels.le;
      if (upper === undefined) continue;
      const labels = dropLabels(sample.labels, LE, true);
      const key = signature(labels);
      let group = groups.get(key);
      if (!group) groups.set(key, (group = { labels, buckets: [] }));
      group.buckets.push({ upper: parseBound(upper), count: sample.value });
    }
    return vectorResult([...groups.values()].map((group) => ({ labels: group.labels, value: bucketQuantile(q, group.buckets) })));
  },
  label_replace: (args, t, ev) => {
    const [destination, replacement, source, pattern] = args.slice(1).map((arg) => ev.text(arg, t)) as [string, string, string, string];
    let regex: LabelPattern;
    try {
      regex = compileLabelPattern(pattern);
    } catch {
      throw new UnsupportedQueryError(`invalid regular expression in label_replace(): ${pattern}`);
    }
    if (!LABEL_NAME.test(destination)) throw new UnsupportedQueryError(`invalid destination label name in label_replace(): ${destination}`);
    return vectorResult(
      ev.vector(args[0]!, t).map((sample) => {
        const match = regex.matcher(sample.labels[source] ?? '');
        if (!match.matches()) return sample;
        // A group that does not exist or did not take part reads as "" (as in Go's Expand).
        const group = (name: string | number) => {
          try {
            return match.group(name) ?? '';
          } catch {
            return '';
          }
        };
        return withLabel(sample, destination, expand(replacement, group));
      }),
    );
  },
  label_join: (args, t, ev) => {
    const [destination, separator, ...sources] = args.slice(1).map((arg) => ev.text(arg, t)) as [string, string, ...string[]];
    const invalid = sources.find((source) => !LABEL_NAME.test(source));
    if (invalid !== undefined) throw new UnsupportedQueryError(`invalid source label name in label_join(): ${invalid}`);
    if (!LABEL_NAME.test(destination)) throw new UnsupportedQueryError(`invalid destination label name in label_join(): ${destination}`);
    return vectorResult(ev.vector(args[0]!, t).map((sample) => withLabel(sample, destination, sources.map((source) => sample.labels[source] ?? '').join(separator))));
  },
  day_of_month: dateFunction((date) => date.getUTCDate()),
  day_of_week: dateFunction((date) => date.getUTCDay()),
  day_of_year: dateFunction((date) => Math.floor((Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()) - Date.UTC(date.getUTCFullYear(), 0, 1)) / 86_400_000) + 1),
  days_in_month: dateFunction((date) => new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 0)).getUTCDate()),
  hour: dateFunction((date) => date.getUTCHours()),
  minute: dateFunction((date) => date.getUTCMinutes()),
  month: dateFunction((date) => date.getUTCMonth() + 1),
  year: dateFunction((date) => date.getUTCFullYear()),
};

/** absent()'s labels: the selector's equality matchers (other than the name). */
function absentLabels(node: PromNode): Labels {
  const inner = node.kind === 'paren' ? node.expr : node;
  if (inner.kind !== 'selector') return {};
  const labels: Record<string, string> = {};
  for (const matcher of inner.matchers) if (matcher.op === '=' && matcher.label !== NAME) labels[matcher.label] = matcher.value;
  return labels;
}

const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** The sample with label `name` set to `value` ("" removes it). */
function withLabel(sample: Sample, name: string, value: string): Sample {
  const labels: Record<string, string> = { ...sample.labels };
  if (value === '') delete labels[name];
  else labels[name] = value;
  return { labels, value: sample.value };
}

/**
 * `template` with the regular expression's groups in it, as Go's Regexp.Expand writes them (what
 * label_replace's replacements are written for): `$1`, `${1}`, `$name`, `${name}`, a bare `$`
 * taking the longest name after it (`$1x` is `${1x}`), `$$` a dollar, and a `$` followed by no
 * name left as it is. A number with a leading zero is a name.
 */
function expand(template: string, group: (name: string | number) => string): string {
  let out = '';
  let at = 0;
  for (let dollar = template.indexOf('$'); dollar >= 0; dollar = template.indexOf('$', at)) {
    out += template.slice(at, dollar);
    at = dollar + 1;
    if (template[at] === '$') {
      out += '$';
      at += 1;
      continue;
    }
    const reference = /^(?:\{([\p{L}\p{Nd}_]+)\}|([\p{L}\p{Nd}_]+))/u.exec(template.slice(at));
    if (!reference) {
      out += '$';
      continue;
    }
    at += reference[0].length;
    const name = reference[1] ?? reference[2]!;
    out += group(/^(0|[1-9][0-9]{0,8})$/.test(name) ? Number(name) : name);
  }
  return out + template.slice(at);
}
