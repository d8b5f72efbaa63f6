// Aggregations (sum, avg, topk, ...) of the groups of one step's samples, and the statistics
// they share with the *_over_time functions.
import { formatValue } from '../json/prometheus-value.js';
import { signature } from './labels.js';
import { UnsupportedQueryError, type Labels, type Sample, type Value } from './model.js';

type Group = { labels: Labels; samples: Sample[] };
type Aggregation = (groups: Group[], param: Value | undefined) => Sample[];

const perGroup =
  (reduce: (values: number[]) => number): Aggregation =>
  (groups) =>
    groups.map((group) => ({ labels: group.labels, value: reduce(group.samples.map((sample) => sample.value)) }));

type Numbers = ArrayLike<number>;

export function sum(values: Numbers): number {
  let total = 0;
  for (let i = 0; i < values.length; i += 1) total += values[i]!;
  return total;
}
export const mean = (values: Numbers) => sum(values) / values.length;
export function variance(values: Numbers): number {
  const average = mean(values);
  let total = 0;
  for (let i = 0; i < values.length; i += 1) total += (values[i]! - average) ** 2;
  return total / values.length;
}
export function minimum(values: Numbers): number {
  let low = NaN;
  for (let i = 0; i < values.length; i += 1) if (Number.isNaN(low) || values[i]! < low) low = values[i]!;
  return low;
}
export function maximum(values: Numbers): number {
  let high = NaN;
  for (let i = 0; i < values.length; i += 1) if (Number.isNaN(high) || values[i]! > high) high = values[i]!;
  return high;
}

/** Prometheus's quantile: linear interpolation between the closest ranks. */
export function quantile(q: number, values: Numbers): number {
  if (values.length === 0 || Number.isNaN(q)) return NaN;
  if (q < 0) return -Infinity;
  if (q > 1) return Infinity;
  const sorted = Array.from(values).sort((a, b) => a - b);
  const rank = q * (sorted.length - 1);
  const lower = Math.max(0, Math.floor(rank));
  const upper = Math.min(sorted.length - 1, lower + 1);
  const weight = rank - Math.floor(rank);
  return sorted[lower]! * (1 - weight) + sorted[upper]! * weight;
}

function scalarParam(param: Value | undefined): number {
  if (param?.kind !== 'scalar') throw new UnsupportedQueryError('expected a scalar parameter');
  return param.value;
}

function topOrBottom(top: boolean): Aggregation {
  return (groups, param) => {
    const k = Math.floor(scalarParam(param));
    const out: Sample[] = [];
    for (const group of groups) {
      const sorted = [...group.samples].sort((a, b) => (top ? b.value - a.value : a.value - b.value));
      out.push(...sorted.slice(0, Math.max(0, k)));
    }
    return out;
  };
}

export const AGGREGATIONS: Record<string, Aggregation> = {
  sum: perGroup(sum),
  avg: perGroup(mean),
  min: perGroup(minimum),
  max: perGroup(maximum),
  count: perGroup((values) => values.length),
  group: perGroup(() => 1),
  stddev: perGroup((values) => Math.sqrt(variance(values))),
  stdvar: perGroup(variance),
  quantile: (groups, param) =>
    groups.map((group) => ({
      labels: group.labels,
      value: quantile(
        scalarParam(param),
        group.samples.map((sample) => sample.value),
      ),
    })),
  topk: topOrBottom(true),
  bottomk: topOrBottom(false),
  count_values: (groups, param) => {
    if (param?.kind !== 'string') throw new UnsupportedQueryError('count_values expects a label name');
    const label = param.value;
    const counts = new Map<string, Sample>();
    for (const group of groups) {
      for (const sample of group.samples) {
        const labels = { ...group.labels, [label]: formatValue(sample.value) };
        const key = signature(labels);
        const entry = counts.get(key);
        if (entry) entry.value += 1;
        else counts.set(key, { labels, value: 1 });
      }
    }
    return [...counts.values()];
  },
};
