// The step path: an expression evaluated at one time, as Prometheus's engine evaluates it (an
// instant query, each step of a range query the column path does not cover, a subquery's steps).
import { AGGREGATIONS } from './aggregations.js';
import { FUNCTIONS, type ArgumentReader } from './functions.js';
import { dropLabels, keepLabels, signature, withoutName } from './labels.js';
import type { LoadedQuery } from './loading.js';
import { DEFAULT_SUBQUERY_STEP_MS, LOOKBACK_MS, UnsupportedQueryError, vectorOf, type Labels, type RangeSeries, type Sample, type Value, type Window } from './model.js';
import { unparenthesized, type SelectorNode } from './nodes.js';
import { arithmetic, COMPARISONS, DEFAULT_MATCHING, dropsName, setOperation, vectorBinary } from './operators.js';
import type { PromNode } from './parser.js';
import { advance, lastAtOrBefore } from './sample-index.js';

/** The groups of an aggregation's input: their labels, and the group of each input sample. */
interface Grouping {
  inputs: Labels[];
  labels: Labels[];
  groupOf: Int32Array;
}

type GrowingSeries = { labels: Labels; times: number[]; values: number[] };

/** Gathers the samples of successive evaluations into one series per label set. */
export class SeriesBuilder {
  private readonly bySignature = new Map<string, GrowingSeries>();
  /** The same label object comes back at every step: found by identity first. */
  private readonly byLabels = new Map<Labels, GrowingSeries>();

  add(t: number, samples: readonly Sample[]): void {
    for (const sample of samples) {
      let series = this.byLabels.get(sample.labels);
      if (!series) {
        const key = signature(sample.labels);
        series = this.bySignature.get(key);
        if (!series) this.bySignature.set(key, (series = { labels: sample.labels, times: [], values: [] }));
        this.byLabels.set(sample.labels, series);
      }
      series.times.push(t);
      series.values.push(sample.value);
    }
  }

  build(): RangeSeries[] {
    return [...this.bySignature.values()].map(({ labels, times, values }) => ({ labels, times: Float64Array.from(times), values: Float64Array.from(values) }));
  }
}

export class StepEvaluation implements ArgumentReader {
  /** A subquery's inner results by time: outer steps share most of their inner steps. */
  private readonly subqueryCache = new Map<PromNode, Map<number, Value>>();
  /** Where each range selector's windows ended at the last step (see rangeSelect). */
  private readonly cursors = new Map<PromNode, { lows: Int32Array; highs: Int32Array; ref: number }>();
  /** The last grouping of each aggregation (see groupingOf). */
  private readonly groupings = new Map<PromNode, Grouping>();
  /** The labels of each node's last output found distinct (see distinct). */
  private readonly checked = new Map<PromNode, Labels[]>();

  constructor(private readonly query: LoadedQuery) {}

  at(node: PromNode, t: number): Value {
    switch (node.kind) {
      case 'number':
        return { kind: 'scalar', value: node.value };
      case 'string':
        return { kind: 'string', value: node.value };
      case 'paren':
        return this.at(node.expr, t);
      case 'selector':
        return node.rangeMs === undefined ? { kind: 'vector', samples: this.instantSelect(node, t) } : { kind: 'matrix', series: this.rangeSelect(node, node.rangeMs, t) };
      case 'subquery':
        return { kind: 'matrix', series: this.subquery(node, t) };
      case 'unary': {
        const value = this.at(node.expr, t);
        if (node.op === '+') return value;
        if (value.kind === 'scalar') return { kind: 'scalar', value: -value.value };
        return this.distinct(node, { kind: 'vector', samples: vectorOf(value).map((sample) => ({ labels: withoutName(sample.labels), value: -sample.value })) });
      }
      case 'aggregate':
        return { kind: 'vector', samples: this.aggregate(node, t) };
      case 'binary':
        return this.distinct(node, this.binary(node, t));
      case 'call':
        return this.distinct(node, FUNCTIONS[node.name]!(node.args, t, this));
    }
  }

  /**
   * `value`, unless it is a vector holding two samples of the same labels (series of different
   * names once a function or an operator dropped the name): Prometheus refuses those. A node's
   * output is usually the same label objects from step to step: those are checked once.
   */
  private distinct(node: PromNode, value: Value): Value {
    if (value.kind !== 'vector' || value.samples.length < 2) return value;
    const { samples } = value;
    const last = this.checked.get(node);
    if (last && last.length === samples.length && samples.every((sample, i) => sample.labels === last[i])) return value;
    const seen = new Set<string>();
    for (const sample of samples) {
      const key = signature(sample.labels);
      if (seen.has(key)) throw new UnsupportedQueryError('vector cannot contain metrics with the same labelset');
      seen.add(key);
    }
    this.checked.set(
      node,
      samples.map((sample) => sample.labels),
    );
    return value;
  }

  /** The newest sample of each series within the lookback; its time (in seconds) instead of its value when `times` is set. */
  instantSelect(node: SelectorNode, t: number, times = false): Sample[] {
    const ref = this.query.reference(node, t);
    const samples: Sample[] = [];
    for (const loaded of this.query.series.get(node) ?? []) {
      const series = loaded.window();
      const index = lastAtOrBefore(series.times, ref);
      if (index >= 0 && series.times[index]! >= ref - LOOKBACK_MS) samples.push({ labels: series.labels, value: times ? series.times[index]! / 1000 : series.values[index]! });
    }
    return samples;
  }

  private rangeSelect(node: SelectorNode, rangeMs: number, t: number): Window[] {
    const ref = this.query.reference(node, t);
    const loaded = this.query.series.get(node) ?? [];
    // A range query's steps go forward in time, so each series' window bounds only move forward:
    // they are kept between steps and advanced, not searched for again.
    let cursors = this.cursors.get(node);
    if (!cursors) this.cursors.set(node, (cursors = { lows: new Int32Array(loaded.length).fill(-1), highs: new Int32Array(loaded.length).fill(-1), ref: -Infinity }));
    const forward = ref >= cursors.ref;
    cursors.ref = ref;
    const out: Window[] = [];
    for (let i = 0; i < loaded.length; i += 1) {
      const series = loaded[i]!.window();
      // Samples at exactly t - range are in (Prometheus 2.x's closed range): times are whole milliseconds.
      const high = forward ? advance(series.times, ref, cursors.highs[i]!) : lastAtOrBefore(series.times, ref);
      const low = forward ? advance(series.times, ref - rangeMs - 1, cursors.lows[i]!) : lastAtOrBefore(series.times, ref - rangeMs - 1);
      cursors.highs[i] = high;
      cursors.lows[i] = low;
      if (high > low) out.push({ labels: series.labels, times: series.times, values: series.values, start: low + 1, end: high + 1 });
    }
    return out;
  }

  private subquery(node: PromNode & { kind: 'subquery' }, t: number): Window[] {
    const ref = this.query.reference(node, t);
    const step = node.stepMs ?? DEFAULT_SUBQUERY_STEP_MS;
    let cache = this.subqueryCache.get(node);
    if (!cache) this.subqueryCache.set(node, (cache = new Map<number, Value>()));
    const series = new SeriesBuilder();
    for (let inner = Math.ceil((ref - node.rangeMs) / step) * step; inner <= ref; inner += step) {
      let value = cache.get(inner);
      if (!value) cache.set(inner, (value = this.at(node.expr, inner)));
      series.add(inner, vectorOf(value));
    }
    return series.build().map((series) => ({ labels: series.labels, times: Float64Array.from(series.times), values: Float64Array.from(series.values), start: 0, end: series.times.length }));
  }

  private aggregate(node: PromNode & { kind: 'aggregate' }, t: number): Sample[] {
    const input = vectorOf(this.at(node.expr, t));
    const param = node.param ? this.at(node.param, t) : undefined;
    const plan = this.groupingOf(node, input);
    // sum and count, the dashboards' usual aggregations, add up in place: the same additions in
    // the same order as the general path, without a list of samples per group at every step.
    if (node.op === 'sum' || node.op === 'count') {
      // Every group holds at least one sample: the grouping was made from this very input.
      const totals = new Float64Array(plan.labels.length);
      for (let i = 0; i < input.length; i += 1) {
        const group = plan.groupOf[i]!;
        totals[group] = totals[group]! + (node.op === 'sum' ? input[i]!.value : 1);
      }
      return plan.labels.map((labels, group) => ({ labels, value: totals[group]! }));
    }
    const groups = plan.labels.map((labels) => ({ labels, samples: [] as Sample[] }));
    for (let i = 0; i < input.length; i += 1) groups[plan.groupOf[i]!]!.samples.push(input[i]!);
    return AGGREGATIONS[node.op]!(groups, param);
  }

  /**
   * Which group each input sample falls in. From step to step an aggregation's input is usually
   * the same series (the same label objects, in the same order), so the grouping is worked out
   * once and reused until the input changes.
   */
  private groupingOf(node: PromNode & { kind: 'aggregate' }, input: readonly Sample[]): Grouping {
    const last = this.groupings.get(node);
    if (last && last.inputs.length === input.length && last.inputs.every((labels, i) => labels === input[i]!.labels)) return last;
    const index = new Map<string, number>();
    const labels: Labels[] = [];
    const groupOf = new Int32Array(input.length);
    input.forEach((sample, i) => {
      const grouped = node.without ? dropLabels(sample.labels, node.grouping, true) : keepLabels(sample.labels, node.grouping);
      const key = signature(grouped);
      let group = index.get(key);
      if (group === undefined) {
        group = labels.length;
        index.set(key, group);
        labels.push(grouped);
      }
      groupOf[i] = group;
    });
    const plan = { inputs: input.map((sample) => sample.labels), labels, groupOf };
    this.groupings.set(node, plan);
    return plan;
  }

  private binary(node: PromNode & { kind: 'binary' }, t: number): Value {
    const left = this.at(node.left, t);
    const right = this.at(node.right, t);
    const comparison = COMPARISONS.has(node.op);
    if (left.kind === 'scalar' && right.kind === 'scalar') {
      const value = arithmetic(node.op, left.value, right.value);
      return { kind: 'scalar', value: comparison ? (value ? 1 : 0) : value };
    }
    const dropName = dropsName(node.op, node.bool);
    if (left.kind === 'scalar' || right.kind === 'scalar') {
      const scalarOnLeft = left.kind === 'scalar';
      const scalar = scalarOnLeft ? (left as { value: number }).value : (right as { value: number }).value;
      const samples: Sample[] = [];
      for (const sample of vectorOf(scalarOnLeft ? right : left)) {
        const value = scalarOnLeft ? arithmetic(node.op, scalar, sample.value) : arithmetic(node.op, sample.value, scalar);
        if (comparison && !node.bool && !value) continue;
        const result = comparison ? (node.bool ? (value ? 1 : 0) : sample.value) : value;
        samples.push({ labels: dropName ? withoutName(sample.labels) : sample.labels, value: result });
      }
      return { kind: 'vector', samples };
    }
    const matching = node.matching ?? DEFAULT_MATCHING;
    const lhs = vectorOf(left);
    const rhs = vectorOf(right);
    if (node.op === 'and' || node.op === 'or' || node.op === 'unless') return { kind: 'vector', samples: setOperation(node.op, lhs, rhs, matching) };
    return { kind: 'vector', samples: vectorBinary(node.op, lhs, rhs, matching, node.bool, dropName) };
  }

  vector(node: PromNode, t: number): Sample[] {
    return vectorOf(this.at(node, t));
  }
  matrix(node: PromNode, t: number): { series: Window[]; rangeStart: number; rangeEnd: number } {
    const value = this.at(node, t);
    if (value.kind !== 'matrix') throw new UnsupportedQueryError('expected a range vector');
    const inner = unparenthesized(node);
    const ranged = inner.kind === 'selector' || inner.kind === 'subquery' ? inner : undefined;
    const end = ranged ? this.query.reference(ranged, t) : t;
    const range = ranged?.rangeMs ?? 0;
    return { series: value.series, rangeStart: end - range, rangeEnd: end };
  }
  scalar(node: PromNode, t: number): number {
    const value = this.at(node, t);
    if (value.kind !== 'scalar') throw new UnsupportedQueryError('expected a scalar');
    return value.value;
  }
  text(node: PromNode, t: number): string {
    const value = this.at(node, t);
    if (value.kind !== 'string') throw new UnsupportedQueryError('expected a string');
    return value.value;
  }
}
