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
  // NaN first, as Prometheus sorts them.
  const sorted = Array.from(values).sort((a, b) => (Number.isNaN(a) ? (Number.isNaN(b) ? 0 : -1) : Number.isNaN(b) ? 1 : a - b));
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

/**
 * topk/bottomk as Prometheus selects them: each group's k kept on a heap (container/heap's
 * algorithm, the kept one nearest to leaving on top), so among equal values, and with NaN, the
 * same samples are kept.
 */
function topOrBottom(top: boolean): Aggregation {
  // Whether `a` sits above `b` on the heap: NaN first, then the one nearest to leaving.
  const above = top ? (a: number, b: number) => Number.isNaN(a) || a < b : (a: number, b: number) => Number.isNaN(a) || a > b;
  return (groups, param) => {
    const k = Math.floor(scalarParam(param));
    const out: Sample[] = [];
    if (!(k >= 1)) return out;
    for (const group of groups) {
      const heap: Sample[] = [];
      for (const sample of group.samples) {
        if (heap.length < k) {
          heap.push(sample);
          siftUp(heap, heap.length - 1, above);
        } else if ((top ? heap[0]!.value < sample.value : heap[0]!.value > sample.value) || (Number.isNaN(heap[0]!.value) && !Number.isNaN(sample.value))) {
          heap[0] = sample;
          if (!siftDown(heap, 0, above)) siftUp(heap, 0, above);
        }
      }
      out.push(...byValue(heap, top ? -1 : 1));
    }
    return out;
  };
}

type Above = (a: number, b: number) => boolean;

function siftUp(heap: Sample[], from: number, above: Above): void {
  for (let j = from; j > 0;) {
    const parent = (j - 1) >> 1;
    if (!above(heap[j]!.value, heap[parent]!.value)) return;
    [heap[j], heap[parent]] = [heap[parent]!, heap[j]!];
    j = parent;
  }
}

/** Whether the sample at `from` moved down. */
function siftDown(heap: Sample[], from: number, above: Above): boolean {
  let i = from;
  for (let child = 2 * i + 1; child < heap.length; child = 2 * i + 1) {
    if (child + 1 < heap.length && above(heap[child + 1]!.value, heap[child]!.value)) child += 1;
    if (!above(heap[child]!.value, heap[i]!.value)) break;
    [heap[i], heap[child]] = [heap[child]!, heap[i]!];
    i = child;
  }
  return i > from;
}

/** Samples by value, ascending (1) or descending (-1), NaN last either way (as Prometheus's sort and sort_desc). */
export function byValue(samples: readonly Sample[], direction: 1 | -1): Sample[] {
  return [...samples].sort((a, b) => (Number.isNaN(a.value) ? (Number.isNaN(b.value) ? 0 : 1) : Number.isNaN(b.value) ? -1 : direction * (a.value - b.value) || 0));
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
