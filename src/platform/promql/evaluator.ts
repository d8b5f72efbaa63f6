// A PromQL evaluator over stored samples, following Prometheus 2.x's engine: instant vector
// selectors look back 5 minutes for their newest sample, range selectors take the samples in
// [t - range, t], subqueries evaluate their expression at step-aligned times, rate/increase/delta
// extrapolate as Prometheus does, and binary operators match vectors by their labels. It covers
// what dashboards and alert rules use; anything else is refused by name (UnsupportedQueryError),
// never answered with a wrong number.
import { compileLabelPattern, type LabelPattern } from './label-pattern.js';
import { parsePromQL, TYPE_NAMES, type LabelMatcher, type PromNode, type TimeModifiers, type VectorMatching } from './parser.js';

export type Labels = Readonly<Record<string, string>>;

/** A stored series: its labels (with `__name__`) and its samples, oldest first, times in ms. */
export interface StoredSeries {
  labels: Labels;
  times: ArrayLike<number>;
  values: ArrayLike<number>;
  /**
   * A source that holds a series in parts (the metrics store's cached chunks) may offer its
   * samples copied into arrays the caller reuses: the column path reads each series once, in
   * turn, so it needs no arrays of the series' own (`times`/`values`, which such a source makes
   * on first access). `sampleCount` is how many samples `readInto` writes.
   */
  sampleCount?: number;
  readInto?(times: Float64Array, values: Float64Array): void;
  /**
   * What a source may know of the samples from how it stores them, saving the column path a look
   * at every sample: the spacing of every time from the one before when it is one number, and
   * whether no value is below the one before (a counter with no reset). Undefined: not known.
   */
  evenSpacing?: number;
  neverFalls?: boolean;
}

/** Where samples come from: every series the matchers select, with its samples in [fromMs, toMs]. */
export interface SampleSource {
  select(matchers: readonly LabelMatcher[], fromMs: number, toMs: number): Promise<StoredSeries[]>;
}

export interface Sample {
  labels: Labels;
  value: number;
}
/** A series of a range query's answer: its points' times (ms) and values, in typed arrays (a day at 15 s is 5,761 of each: plain arrays of them are copied by every collection that meets them alive). */
export interface RangeSeries {
  labels: Labels;
  times: Float64Array;
  values: Float64Array;
}

/** A query's answer in Prometheus's terms (times in ms; the HTTP layer formats them). */
export type QueryResult =
  { resultType: 'vector'; result: Sample[] } | { resultType: 'scalar'; result: number } | { resultType: 'string'; result: string } | { resultType: 'matrix'; result: RangeSeries[] };

/** The query cannot be parsed, or asks for something outside the evaluator: a 400 naming it. */
export class UnsupportedQueryError extends Error {}

/** How far an instant vector selector looks back for a sample (Prometheus's default lookback delta). */
export const LOOKBACK_MS = 5 * 60_000;
/** Subquery step when none is written (Prometheus's default global evaluation interval). */
export const DEFAULT_SUBQUERY_STEP_MS = 60_000;
/** Most points a range query may return per series (as Prometheus: 11,000). */
export const MAX_POINTS_PER_SERIES = 11_000;

/** Samples [start, end) of one series: indexes into the loaded arrays, so a step copies nothing. */
interface Window {
  labels: Labels;
  times: Float64Array;
  values: Float64Array;
  start: number;
  end: number;
}

/** A window's samples as arrays of their own length (views, not copies), for the less used functions. */
function samplesOf(w: Window): { values: Float64Array; times: Float64Array } {
  return { values: w.values.subarray(w.start, w.end), times: w.times.subarray(w.start, w.end) };
}

type Value = { kind: 'scalar'; value: number } | { kind: 'string'; value: string } | { kind: 'vector'; samples: Sample[] } | { kind: 'matrix'; series: Window[] };

const NAME = '__name__';

/** Evaluates `query` at one time. */
export async function instantQuery(source: SampleSource, query: string, timeMs: number): Promise<QueryResult> {
  const tree = parse(query);
  const evaluation = await Evaluation.prepare(source, tree, timeMs, timeMs);
  const value = evaluation.at(tree, timeMs);
  switch (value.kind) {
    case 'scalar':
      return { resultType: 'scalar', result: value.value };
    case 'string':
      return { resultType: 'string', result: value.value };
    case 'vector':
      return { resultType: 'vector', result: value.samples };
    case 'matrix':
      return {
        resultType: 'matrix',
        result: value.series.map((series) => ({
          labels: series.labels,
          times: series.times.slice(series.start, series.end),
          values: series.values.slice(series.start, series.end),
        })),
      };
  }
}

export interface RangeQueryOptions {
  /** Evaluates the whole expression at each step in turn, never over all steps at once (the reference the column path is tested against). */
  stepByStep?: boolean;
}

/**
 * Evaluates `query` at start, start + step, ... up to end; the result is one series per label set.
 * What dashboards chart is evaluated a node at a time over every step (see Evaluation.columnsOf),
 * anything else a step at a time: the same numbers either way.
 */
export async function rangeQuery(
  source: SampleSource,
  query: string,
  startMs: number,
  endMs: number,
  stepMs: number,
  options: RangeQueryOptions = {},
): Promise<QueryResult & { resultType: 'matrix' }> {
  const tree = parse(query);
  if (tree.type !== 'vector' && tree.type !== 'scalar') {
    throw new UnsupportedQueryError(`invalid expression type "${TYPE_NAMES[tree.type]}" for range query, must be scalar or instant vector`);
  }
  if (endMs < startMs) throw new UnsupportedQueryError('end timestamp must not be before start time');
  if (stepMs <= 0) throw new UnsupportedQueryError('zero or negative query resolution step widths are not accepted: try a positive integer');
  if ((endMs - startMs) / stepMs > MAX_POINTS_PER_SERIES)
    throw new UnsupportedQueryError(`exceeded maximum resolution of ${MAX_POINTS_PER_SERIES} points per timeseries: try decreasing the query resolution (?step=XX)`);
  const evaluation = await Evaluation.prepare(source, tree, startMs, endMs);
  const steps: number[] = [];
  for (let t = startMs; t <= endMs; t += stepMs) steps.push(t);
  const stepTimes = Float64Array.from(steps);
  const columns = options.stepByStep ? undefined : evaluation.columnsOf(tree, stepTimes);
  let result = columns?.kind === 'vector' ? seriesOfColumns(columns.series, stepTimes) : undefined;
  if (!result) {
    const series = new SeriesBuilder();
    for (const t of steps) {
      const value = evaluation.at(tree, t);
      series.add(t, value.kind === 'scalar' ? [{ labels: {}, value: value.value }] : value.kind === 'vector' ? value.samples : []);
    }
    result = series.build();
  }
  return { resultType: 'matrix', result: result.sort((a, b) => compareLabels(a.labels, b.labels)) };
}

/** Whether `query`'s steps depend on its range's edges (`@ start()`, `@ end()`); an invalid query says yes (evaluating it says what is wrong). */
export function refersToRangeEdges(query: string): boolean {
  const parsed = parsePromQL(query);
  if (parsed.problem !== undefined) return true;
  const refers = (node: PromNode): boolean => ('at' in node && (node.at === 'start' || node.at === 'end')) || children(node).some(refers);
  return refers(parsed.tree);
}

function parse(query: string): PromNode {
  const parsed = parsePromQL(query);
  if (parsed.problem !== undefined) throw new UnsupportedQueryError(`invalid PromQL: ${parsed.problem}`);
  assertSupported(parsed.tree);
  return parsed.tree;
}

function assertSupported(node: PromNode): void {
  if (node.kind === 'call' && !(node.name in FUNCTIONS)) throw new UnsupportedQueryError(`the function "${node.name}" is not supported by the embedded metrics store`);
  if (node.kind === 'aggregate' && !(node.op in AGGREGATIONS)) throw new UnsupportedQueryError(`the aggregation "${node.op}" is not supported by the embedded metrics store`);
  for (const child of children(node)) assertSupported(child);
}

function children(node: PromNode): PromNode[] {
  switch (node.kind) {
    case 'call':
      return node.args;
    case 'aggregate':
      return node.param ? [node.param, node.expr] : [node.expr];
    case 'binary':
      return [node.left, node.right];
    case 'unary':
    case 'paren':
    case 'subquery':
      return [node.expr];
    default:
      return [];
  }
}

/** The groups of an aggregation's input: their labels, and the group of each input sample. */
interface Grouping {
  inputs: Labels[];
  labels: Labels[];
  groupOf: Int32Array;
}

/** The numbers as a Float64Array: the store's own when it answered one, else a copy. */
function asDoubles(numbers: ArrayLike<number>): Float64Array {
  return numbers instanceof Float64Array ? numbers : Float64Array.from(numbers);
}

/** Arrays an evaluation reuses to read one series at a time (see LoadedSeries.read); they grow to the longest. */
class SampleBuffers {
  times = new Float64Array(0);
  values = new Float64Array(0);

  holding(count: number): { times: Float64Array; values: Float64Array } {
    if (this.times.length < count) [this.times, this.values] = [new Float64Array(count), new Float64Array(count)];
    return { times: this.times.subarray(0, count), values: this.values.subarray(0, count) };
  }
}

/** A selector's series as loaded: whole, in arrays of its own (the step path), or read through an evaluation's buffers (the column path). */
class LoadedSeries {
  private whole: Window | undefined;

  constructor(private readonly stored: StoredSeries) {}

  get labels(): Labels {
    return this.stored.labels;
  }

  /** See StoredSeries. */
  get evenSpacing(): number | undefined {
    return this.stored.evenSpacing;
  }

  get neverFalls(): boolean {
    return this.stored.neverFalls === true;
  }

  /** All the samples, made once (a source with parts joins them now). */
  window(): Window {
    if (!this.whole) {
      const { labels, times, values } = this.stored;
      this.whole = { labels, times: asDoubles(times), values: asDoubles(values), start: 0, end: times.length };
    }
    return this.whole;
  }

  /** The samples, valid until the buffers' next use: copied into them when the source offers it and the series is not whole yet. */
  read(buffers: SampleBuffers): { times: Float64Array; values: Float64Array } {
    const { stored } = this;
    if (this.whole || stored.sampleCount === undefined || !stored.readInto) return this.window();
    const into = buffers.holding(stored.sampleCount);
    stored.readInto(into.times, into.values);
    return into;
  }
}

type GrowingSeries = { labels: Labels; times: number[]; values: number[] };

/** Gathers the samples of successive evaluations into one series per label set. */
class SeriesBuilder {
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

class Evaluation {
  /** Samples of each selector, loaded once for the whole query. */
  private readonly loaded = new Map<PromNode, LoadedSeries[]>();
  /** Where the column path reads a series, one at a time. */
  private readonly buffers = new SampleBuffers();
  /** A subquery's inner results by time: outer steps share most of their inner steps. */
  private readonly subqueryCache = new Map<PromNode, Map<number, Value>>();
  /** Where each range selector's windows ended at the last step (see rangeSelect). */
  private readonly cursors = new Map<PromNode, { lows: Int32Array; highs: Int32Array; ref: number }>();
  /** The last grouping of each aggregation (see groupingOf). */
  private readonly groupings = new Map<PromNode, Grouping>();
  /**
   * rate/increase/delta columns of series that two of the query's selectors both select with the
   * same range and modifiers (an error ratio: `rate(x{code=~"5.."}[5m]) / rate(x[5m])`), computed
   * once, by changeKey and the series' signature; `undefined` until the query's shared series are found.
   */
  private sharedChanges: Map<string, Map<string, Column | undefined>> | undefined;
  /** The rate/increase/delta calls over each range selector (see sharedChangesOf). */
  private readonly changesOver = new Map<PromNode, (PromNode & { kind: 'call' })[]>();

  private constructor(
    private readonly startMs: number,
    private readonly endMs: number,
  ) {}

  static async prepare(source: SampleSource, tree: PromNode, startMs: number, endMs: number): Promise<Evaluation> {
    const evaluation = new Evaluation(startMs, endMs);
    const windows: { node: PromNode & { kind: 'selector' }; from: number; to: number }[] = [];
    evaluation.collect(tree, startMs, endMs, windows);
    await Promise.all(
      windows.map(async (window) => {
        const series = await source.select(window.node.matchers, window.from, window.to);
        evaluation.loaded.set(
          window.node,
          series.map((s) => new LoadedSeries(s)),
        );
      }),
    );
    return evaluation;
  }

  /** The time a selector or subquery reads at, for an evaluation at `t`. */
  private reference(modifiers: TimeModifiers, t: number): number {
    const base = modifiers.at === 'start' ? this.startMs : modifiers.at === 'end' ? this.endMs : (modifiers.at ?? t);
    return base - modifiers.offsetMs;
  }

  /** Which samples each selector needs when its expression is evaluated at times in [from, to]. */
  private collect(node: PromNode, from: number, to: number, out: { node: PromNode & { kind: 'selector' }; from: number; to: number }[]): void {
    if (node.kind === 'selector') {
      const [low, high] = [this.reference(node, from), this.reference(node, to)];
      out.push({ node, from: Math.min(low, high) - (node.rangeMs ?? LOOKBACK_MS), to: Math.max(low, high) });
      return;
    }
    if (node.kind === 'subquery') {
      const [low, high] = [this.reference(node, from), this.reference(node, to)];
      this.collect(node.expr, Math.min(low, high) - node.rangeMs, Math.max(low, high), out);
      return;
    }
    if (node.kind === 'call' && node.name in EXTRAPOLATED) {
      const selector = unparenthesized(node.args[0]!);
      if (selector.kind === 'selector') this.changesOver.set(selector, [...(this.changesOver.get(selector) ?? []), node]);
    }
    for (const child of children(node)) this.collect(child, from, to, out);
  }

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
        return { kind: 'vector', samples: vectorOf(value).map((sample) => ({ labels: withoutName(sample.labels), value: -sample.value })) };
      }
      case 'aggregate':
        return { kind: 'vector', samples: this.aggregate(node, t) };
      case 'binary':
        return this.binary(node, t);
      case 'call':
        return FUNCTIONS[node.name]!(node.args, t, this);
    }
  }

  /** The newest sample of each series within the lookback; its time (in seconds) instead of its value when `times` is set. */
  instantSelect(node: PromNode & { kind: 'selector' }, t: number, times = false): Sample[] {
    const ref = this.reference(node, t);
    const samples: Sample[] = [];
    for (const loaded of this.loaded.get(node) ?? []) {
      const series = loaded.window();
      const index = lastAtOrBefore(series.times, ref);
      if (index >= 0 && series.times[index]! >= ref - LOOKBACK_MS) samples.push({ labels: series.labels, value: times ? series.times[index]! / 1000 : series.values[index]! });
    }
    return samples;
  }

  private rangeSelect(node: PromNode & { kind: 'selector' }, rangeMs: number, t: number): Window[] {
    const ref = this.reference(node, t);
    const loaded = this.loaded.get(node) ?? [];
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
    const ref = this.reference(node, t);
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
    const dropName = !comparison || node.bool;
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

  // --- the column path: a range query's nodes over every step at once ---------------------------

  /**
   * `node` at every one of `steps`, a column of values per series; undefined where the column path
   * does not answer exactly as the step path would (the query is then evaluated step by step).
   * It covers what dashboards chart: selectors, rate/increase/delta, sum/count/avg/min/max,
   * arithmetic and comparisons, histogram_quantile.
   */
  columnsOf(node: PromNode, steps: Float64Array): Columns | undefined {
    switch (node.kind) {
      case 'number':
        return { kind: 'scalar', value: node.value };
      case 'paren':
        return this.columnsOf(node.expr, steps);
      case 'selector':
        return node.rangeMs === undefined ? wholeColumns(this.selectorMembers(node, steps), steps.length) : undefined;
      case 'aggregate':
        return this.aggregateColumns(node, steps);
      case 'binary':
        return this.binaryColumns(node, steps);
      case 'call':
        if (node.name === 'histogram_quantile') return this.quantileColumns(node, steps);
        return node.name in EXTRAPOLATED ? wholeColumns(this.changeMembers(node, steps, EXTRAPOLATED[node.name]!), steps.length) : undefined;
      default:
        return undefined;
    }
  }

  /** The loaded series of a selector, when their columns fit in MAX_COLUMN_CELLS. */
  private columnInput(node: PromNode & { kind: 'selector' }, steps: Float64Array): LoadedSeries[] | undefined {
    const loaded = this.loaded.get(node) ?? [];
    return loaded.length * steps.length <= MAX_COLUMN_CELLS ? loaded : undefined;
  }

  /**
   * The input of an aggregation one series at a time. A selector's or rate's columns are computed
   * into one scratch column each in turn (hundreds of series are summed into a few groups: making
   * a column for each cost more than the sums); anything else is computed whole first.
   */
  private members(node: PromNode, steps: Float64Array): Members | undefined {
    const inner = unparenthesized(node);
    if (inner.kind === 'selector' && inner.rangeMs === undefined) return this.selectorMembers(inner, steps);
    if (inner.kind === 'call' && inner.name in EXTRAPOLATED) return this.changeMembers(inner, steps, EXTRAPOLATED[inner.name]!);
    const columns = this.columnsOf(inner, steps);
    return columns?.kind === 'vector' ? { labels: columns.series.map((column) => column.labels), column: (i) => columns.series[i]! } : undefined;
  }

  private selectorMembers(node: PromNode & { kind: 'selector' }, steps: Float64Array): Members | undefined {
    const loaded = this.columnInput(node, steps);
    if (!loaded) return undefined;
    const refs = steps.map((t) => this.reference(node, t));
    return {
      labels: loaded.map((series) => series.labels),
      column: (i, into) => {
        const { times, values } = loaded[i]!.read(this.buffers);
        into.present.fill(0);
        // References only move forward from step to step, and so does the newest sample at each.
        let index = -1;
        for (let s = 0; s < refs.length; s += 1) {
          index = advance(times, refs[s]!, index);
          if (index >= 0 && times[index]! >= refs[s]! - LOOKBACK_MS) {
            into.values[s] = values[index]!;
            into.present[s] = 1;
          }
        }
        return into;
      },
    };
  }

  private changeMembers(node: PromNode & { kind: 'call' }, steps: Float64Array, kind: { isCounter: boolean; isRate: boolean }): Members | undefined {
    const selector = unparenthesized(node.args[0]!);
    if (selector.kind !== 'selector' || selector.rangeMs === undefined) return undefined;
    const loaded = this.columnInput(selector, steps);
    if (!loaded) return undefined;
    const rangeMs = selector.rangeMs;
    const { isCounter, isRate } = kind;
    const refs = steps.map((t) => this.reference(selector, t));
    const refStep = evenSpacingOf(refs);
    const shared = this.sharedChangesOf(node, selector);
    return {
      labels: loaded.map((series) => withoutName(series.labels)),
      column: (i, into) => {
        const key = shared && signature(loaded[i]!.labels);
        const done = key === undefined ? undefined : shared!.get(key);
        if (done) {
          into.values.set(done.values);
          into.present.set(done.present);
          return into;
        }
        const series = loaded[i]!;
        const { times, values } = series.read(this.buffers);
        // Not kept by `values` (resetCountsOf): the buffers hold the next series next time.
        const resets = isCounter ? countResets(values, series.neverFalls) : undefined;
        changeColumn(times, values, resets, refs, refStep, rangeMs, isRate, into, series.evenSpacing);
        if (key !== undefined && shared!.has(key)) shared!.set(key, { labels: into.labels, values: into.values.slice(), present: into.present.slice() });
        return into;
      },
    };
  }

  /**
   * The columns shared by `node`'s selector and another rate/increase/delta of the same function,
   * range and modifiers in this query (by series signature, undefined until computed), or
   * undefined when it shares none.
   */
  private sharedChangesOf(node: PromNode & { kind: 'call' }, selector: PromNode & { kind: 'selector' }): Map<string, Column | undefined> | undefined {
    if (!this.sharedChanges) {
      this.sharedChanges = new Map();
      // Each change's series, grouped by what makes two of its columns the same.
      const selectorsByKey = new Map<string, Set<PromNode>>();
      for (const [other] of this.loaded) {
        for (const change of this.changesOver.get(other) ?? []) {
          const key = changeKey(change, other as PromNode & { kind: 'selector' });
          if (!selectorsByKey.has(key)) selectorsByKey.set(key, new Set());
          selectorsByKey.get(key)!.add(other);
        }
      }
      for (const [key, selectors] of selectorsByKey) {
        if (selectors.size < 2) continue;
        const seen = new Set<string>();
        const shared = new Map<string, Column | undefined>();
        for (const one of selectors) {
          for (const series of this.loaded.get(one) ?? []) {
            const id = signature(series.labels);
            if (seen.has(id)) shared.set(id, undefined);
            seen.add(id);
          }
        }
        if (shared.size > 0) this.sharedChanges.set(key, shared);
      }
    }
    return this.sharedChanges.get(changeKey(node, selector));
  }

  private aggregateColumns(node: PromNode & { kind: 'aggregate' }, steps: Float64Array): Columns | undefined {
    const fold = COLUMN_FOLDS[node.op];
    if (!fold || node.param) return undefined;
    const input = this.members(node.expr, steps);
    if (!input) return undefined;
    const { groups, groupOf } = groupsOf(input.labels, (labels) => (node.without ? dropLabels(labels, node.grouping, true) : keepLabels(labels, node.grouping)), steps.length);
    const order = new FirstPresent(groups.length, steps.length);
    const counts = groups.map(() => new Float64Array(node.op === 'avg' ? steps.length : 0));
    if (node.op === 'min' || node.op === 'max') for (const group of groups) group.values.fill(NaN);
    const scratch = emptyColumn({}, steps.length);
    // Member by member: each group's additions in the step path's order.
    for (let i = 0; i < input.labels.length; i += 1) {
      const { values, present } = input.column(i, scratch);
      const group = groupOf[i]!;
      fold(groups[group]!.values, counts[group]!, values, present);
      order.note(group, i, present);
    }
    if (!order.inOrder()) return undefined;
    groups.forEach((group, g) => order.presentIn(g, group.present));
    if (node.op === 'avg') groups.forEach((group, g) => group.values.forEach((total, s) => (group.values[s] = total / counts[g]![s]!)));
    return { kind: 'vector', series: groups };
  }

  private quantileColumns(node: PromNode & { kind: 'call' }, steps: Float64Array): Columns | undefined {
    const q = this.columnsOf(node.args[0]!, steps);
    const input = this.columnsOf(node.args[1]!, steps);
    if (q?.kind !== 'scalar' || input?.kind !== 'vector') return undefined;
    const buckets = input.series.filter((column) => column.labels.le !== undefined);
    const { groups, groupOf } = groupsOf(
      buckets.map((column) => column.labels),
      (labels) => dropLabels(labels, LE, true),
      steps.length,
    );
    const order = new FirstPresent(groups.length, steps.length);
    buckets.forEach((column, i) => order.note(groupOf[i]!, i, column.present));
    if (!order.inOrder()) return undefined;
    const uppers = buckets.map((column) => parseBound(column.labels.le!));
    const members = groups.map((_, g) => buckets.map((_column, i) => i).filter((i) => groupOf[i] === g));
    for (let s = 0; s < steps.length; s += 1) {
      groups.forEach((group, g) => {
        const present = members[g]!.filter((i) => buckets[i]!.present[s]);
        if (present.length === 0) return;
        group.values[s] = bucketQuantile(
          q.value,
          present.map((i) => ({ upper: uppers[i]!, count: buckets[i]!.values[s]! })),
        );
        group.present[s] = 1;
      });
    }
    return { kind: 'vector', series: groups };
  }

  private binaryColumns(node: PromNode & { kind: 'binary' }, steps: Float64Array): Columns | undefined {
    if (node.op === 'and' || node.op === 'or' || node.op === 'unless') return undefined;
    const left = this.columnsOf(node.left, steps);
    const right = left && this.columnsOf(node.right, steps);
    if (!left || !right) return undefined;
    const comparison = COMPARISONS.has(node.op);
    if (left.kind === 'scalar' && right.kind === 'scalar') {
      const value = arithmetic(node.op, left.value, right.value);
      return { kind: 'scalar', value: comparison ? (value ? 1 : 0) : value };
    }
    const dropName = !comparison || node.bool;
    // Each output column pairs a vector column with its partner: a scalar, or the matching column.
    const pairs: { labels: Labels; left: Column | number; right: Column | number }[] = [];
    if (left.kind === 'scalar' || right.kind === 'scalar') {
      const vector = left.kind === 'vector' ? left : (right as Columns & { kind: 'vector' });
      for (const column of vector.series) {
        const labels = dropName ? withoutName(column.labels) : column.labels;
        pairs.push(left.kind === 'scalar' ? { labels, left: left.value, right: column } : { labels, left: column, right: (right as { value: number }).value });
      }
    } else {
      const matching = node.matching ?? DEFAULT_MATCHING;
      if (matching.card !== 'one-to-one') return undefined;
      // Keys repeated on a side may meet at some step (an error) or not: the step path tells.
      const rightByKey = uniqueByKey(right.series, matching);
      if (!rightByKey || !uniqueByKey(left.series, matching)) return undefined;
      for (const column of left.series) {
        const partner = rightByKey.get(matchingKey(column.labels, matching));
        if (!partner) continue;
        const named = dropName ? withoutName(column.labels) : column.labels;
        pairs.push({ labels: matching.on ? keepLabels(named, matching.labels) : dropLabels(named, matching.labels), left: column, right: partner });
      }
    }
    const { op, bool } = node;
    // A scalar side as a column of it, present everywhere, made once for every pair.
    const scalarColumn = (value: number): Column => ({ labels: {}, values: new Float64Array(steps.length).fill(value), present: new Uint8Array(steps.length).fill(1) });
    const leftScalarColumn = left.kind === 'scalar' ? scalarColumn(left.value) : undefined;
    const rightScalarColumn = right.kind === 'scalar' ? scalarColumn(right.value) : undefined;
    const series = pairs.map((pair) => {
      const column = emptyColumn(pair.labels, steps.length);
      if (!comparison) {
        // Arithmetic: each step computed, present where both sides are (a value where one side is
        // missing is never read: whatever reads a column reads its present steps).
        const a = typeof pair.left === 'number' ? leftScalarColumn! : pair.left;
        const b = typeof pair.right === 'number' ? rightScalarColumn! : pair.right;
        arithmeticColumn(op, a.values, b.values, column.values);
        bothPresent(a.present, b.present, column.present);
        return column;
      }
      const { values, present } = column;
      // Each side a column or a scalar, told apart once (not at each of thousands of steps).
      const [leftColumn, rightColumn] = [typeof pair.left === 'number' ? undefined : pair.left, typeof pair.right === 'number' ? undefined : pair.right];
      const [leftScalar, rightScalar] = [typeof pair.left === 'number' ? pair.left : 0, typeof pair.right === 'number' ? pair.right : 0];
      const filtered = !bool;
      for (let s = 0; s < steps.length; s += 1) {
        if ((leftColumn && !leftColumn.present[s]) || (rightColumn && !rightColumn.present[s])) continue;
        const a = leftColumn ? leftColumn.values[s]! : leftScalar;
        const b = rightColumn ? rightColumn.values[s]! : rightScalar;
        const value = arithmetic(op, a, b);
        if (filtered && !value) continue;
        values[s] = filtered ? (leftColumn ? a : b) : value;
        present[s] = 1;
      }
      return column;
    });
    return { kind: 'vector', series };
  }

  // Helpers the function table reads.
  vector(node: PromNode, t: number): Sample[] {
    return vectorOf(this.at(node, t));
  }
  matrix(node: PromNode, t: number): { series: Window[]; rangeStart: number; rangeEnd: number } {
    const value = this.at(node, t);
    if (value.kind !== 'matrix') throw new UnsupportedQueryError('expected a range vector');
    const inner = unparenthesized(node);
    const ranged = inner.kind === 'selector' || inner.kind === 'subquery' ? inner : undefined;
    const end = ranged ? this.reference(ranged, t) : t;
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

function vectorOf(value: Value): Sample[] {
  if (value.kind !== 'vector') throw new UnsupportedQueryError(`expected an instant vector, got a ${value.kind}`);
  return value.samples;
}

/** Index of the last time ≤ t, or -1, moving forward from `from` (an index whose time is ≤ t, or -1). */
function advance(times: Float64Array, t: number, from: number): number {
  let index = from;
  while (index + 1 < times.length && times[index + 1]! <= t) index += 1;
  return index;
}

/** Index of the last time ≤ t, or -1. */
function lastAtOrBefore(times: Float64Array, t: number): number {
  let low = 0;
  let high = times.length - 1;
  let found = -1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (times[middle]! <= t) {
      found = middle;
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  return found;
}

// --- labels -------------------------------------------------------------------------------------

// Label sets are never changed once made, and a series keeps its label object from step to step,
// so what is derived from one (its signature, its projections) is computed once per object.
const signatures = new WeakMap<Labels, string>();

export function signature(labels: Labels): string {
  let found = signatures.get(labels);
  if (found === undefined) {
    found = Object.keys(labels)
      .sort()
      .map((key) => `${key}\u0000${labels[key]}`)
      .join('\u0001');
    signatures.set(labels, found);
  }
  return found;
}

type Projections = WeakMap<readonly string[], WeakMap<Labels, Labels>>;
const kept: Projections = new WeakMap();
const dropped: Projections = new WeakMap();
const droppedWithName: Projections = new WeakMap();
const NO_LABELS: readonly string[] = [];

function memoised(cache: Projections, labels: Labels, list: readonly string[], make: () => Labels): Labels {
  let byLabels = cache.get(list);
  if (!byLabels) cache.set(list, (byLabels = new WeakMap()));
  let found = byLabels.get(labels);
  if (!found) byLabels.set(labels, (found = make()));
  return found;
}

/** The order of a range query's series: by their labels. */
export function compareLabels(a: Labels, b: Labels): number {
  const left = signature(a);
  const right = signature(b);
  return left < right ? -1 : left > right ? 1 : 0;
}

function withoutName(labels: Labels): Labels {
  if (!(NAME in labels)) return labels;
  return dropLabels(labels, NO_LABELS, true);
}

function keepLabels(labels: Labels, keep: readonly string[]): Labels {
  return memoised(kept, labels, keep, () => {
    const out: Record<string, string> = {};
    for (const key of keep) if (labels[key] !== undefined && labels[key] !== '') out[key] = labels[key];
    return out;
  });
}

/** The labels without those listed (and without the metric name, when `name` is set). */
function dropLabels(labels: Labels, drop: readonly string[], name = false): Labels {
  return memoised(name ? droppedWithName : dropped, labels, drop, () => {
    const out: Record<string, string> = {};
    for (const [key, value] of Object.entries(labels)) if (!drop.includes(key) && !(name && key === NAME)) out[key] = value;
    return out;
  });
}

function matchingKey(labels: Labels, matching: VectorMatching): string {
  return signature(matching.on ? keepLabels(labels, matching.labels) : dropLabels(labels, matching.labels, true));
}

// --- operators ----------------------------------------------------------------------------------

/** Matching on every label but the name, when no on/ignoring is written (one object: projections are memoised by it). */
const DEFAULT_MATCHING: VectorMatching = { on: false, labels: [], card: 'one-to-one', include: [] };

const COMPARISONS = new Set(['==', '!=', '>', '<', '>=', '<=']);

/** What makes two rate/increase/delta columns of one series the same: the function, the range and the time modifiers. */
function changeKey(node: PromNode & { kind: 'call' }, selector: PromNode & { kind: 'selector' }): string {
  return `${node.name} ${String(selector.rangeMs)} ${selector.offsetMs} ${String(selector.at)}`;
}

/** An expression without the parentheses around it. */
function unparenthesized(node: PromNode): PromNode {
  let inner = node;
  while (inner.kind === 'paren') inner = inner.expr;
  return inner;
}

/** Present where both are: four steps at a time where the arrays allow (each step is 0 or 1, so a word's AND is each step's). */
function bothPresent(a: Uint8Array, b: Uint8Array, out: Uint8Array): void {
  let s = 0;
  if (a.byteOffset % 4 === 0 && b.byteOffset % 4 === 0 && out.byteOffset % 4 === 0) {
    const words = out.length >> 2;
    const [wordsOfA, wordsOfB, wordsOut] = [new Uint32Array(a.buffer, a.byteOffset, words), new Uint32Array(b.buffer, b.byteOffset, words), new Uint32Array(out.buffer, out.byteOffset, words)];
    for (let w = 0; w < words; w += 1) wordsOut[w] = wordsOfA[w]! & wordsOfB[w]!;
    s = words * 4;
  }
  for (; s < out.length; s += 1) out[s] = a[s]! & b[s]!;
}

/** `a op b` at every step into `out`: one loop per operator, not a choice of operator per step. */
function arithmeticColumn(op: string, a: Float64Array, b: Float64Array, out: Float64Array): void {
  switch (op) {
    case '+':
      for (let s = 0; s < out.length; s += 1) out[s] = a[s]! + b[s]!;
      return;
    case '-':
      for (let s = 0; s < out.length; s += 1) out[s] = a[s]! - b[s]!;
      return;
    case '*':
      for (let s = 0; s < out.length; s += 1) out[s] = a[s]! * b[s]!;
      return;
    case '/':
      for (let s = 0; s < out.length; s += 1) out[s] = a[s]! / b[s]!;
      return;
    default:
      for (let s = 0; s < out.length; s += 1) out[s] = arithmetic(op, a[s]!, b[s]!);
  }
}

/** An operator's value; comparisons give 1 (true) or 0 (false). */
function arithmetic(op: string, a: number, b: number): number {
  switch (op) {
    case '+':
      return a + b;
    case '-':
      return a - b;
    case '*':
      return a * b;
    case '/':
      return a / b;
    case '%':
      return a % b;
    case '^':
      return a ** b;
    case 'atan2':
      return Math.atan2(a, b);
    case '==':
      return a === b ? 1 : 0;
    case '!=':
      return a !== b ? 1 : 0;
    case '>':
      return a > b ? 1 : 0;
    case '<':
      return a < b ? 1 : 0;
    case '>=':
      return a >= b ? 1 : 0;
    case '<=':
      return a <= b ? 1 : 0;
    default:
      throw new UnsupportedQueryError(`the operator "${op}" is not supported here`);
  }
}

function setOperation(op: 'and' | 'or' | 'unless', lhs: Sample[], rhs: Sample[], matching: VectorMatching): Sample[] {
  const rightKeys = new Set(rhs.map((sample) => matchingKey(sample.labels, matching)));
  if (op === 'and') return lhs.filter((sample) => rightKeys.has(matchingKey(sample.labels, matching)));
  if (op === 'unless') return lhs.filter((sample) => !rightKeys.has(matchingKey(sample.labels, matching)));
  const leftKeys = new Set(lhs.map((sample) => matchingKey(sample.labels, matching)));
  return [...lhs, ...rhs.filter((sample) => !leftKeys.has(matchingKey(sample.labels, matching)))];
}

function vectorBinary(op: string, lhs: Sample[], rhs: Sample[], matching: VectorMatching, bool: boolean, dropName: boolean): Sample[] {
  const comparison = COMPARISONS.has(op);
  // The "one" side is indexed; group_right swaps the sides' roles.
  const [many, one] = matching.card === 'one-to-many' ? [rhs, lhs] : [lhs, rhs];
  const oneByKey = new Map<string, Sample>();
  for (const sample of one) {
    const key = matchingKey(sample.labels, matching);
    if (oneByKey.has(key)) {
      const side = matching.card === 'one-to-one' ? 'right' : matching.card === 'many-to-one' ? 'right' : 'left';
      throw new UnsupportedQueryError(
        `found duplicate series for the match group on the ${side} hand-side of the operation: many-to-many matching not allowed: matching labels must be unique on one side`,
      );
    }
    oneByKey.set(key, sample);
  }
  const seen = new Set<string>();
  const out: Sample[] = [];
  for (const sample of many) {
    const key = matchingKey(sample.labels, matching);
    const partner = oneByKey.get(key);
    if (!partner) continue;
    if (matching.card === 'one-to-one') {
      if (seen.has(key))
        throw new UnsupportedQueryError(
          'found duplicate series for the match group on the left hand-side of the operation: many-to-many matching not allowed: matching labels must be unique on one side',
        );
      seen.add(key);
    }
    const [left, right] = matching.card === 'one-to-many' ? [partner, sample] : [sample, partner];
    const value = arithmetic(op, left.value, right.value);
    if (comparison && !bool && !value) continue;
    let labels = dropName ? withoutName(sample.labels) : sample.labels;
    if (matching.card === 'one-to-one') {
      labels = matching.on ? keepLabels(labels, matching.labels) : dropLabels(labels, matching.labels);
    } else {
      const copied: Record<string, string> = { ...labels };
      for (const label of matching.include) {
        if (partner.labels[label] !== undefined && partner.labels[label] !== '') copied[label] = partner.labels[label];
        else delete copied[label];
      }
      labels = copied;
    }
    out.push({ labels, value: comparison ? (bool ? value : left.value) : value });
  }
  if (matching.card !== 'one-to-one') {
    const keys = new Set<string>();
    for (const sample of out) {
      const key = signature(sample.labels);
      if (keys.has(key)) throw new UnsupportedQueryError('multiple matches for labels: grouping labels must ensure unique matches');
      keys.add(key);
    }
  }
  return out;
}

// --- the column path's parts --------------------------------------------------------------------

/** One series of a range query at every step: its value at each, and whether it has one there. */
interface Column {
  labels: Labels;
  values: Float64Array;
  present: Uint8Array;
}

type Columns = { kind: 'scalar'; value: number } | { kind: 'vector'; series: Column[] };

/** Most values (series × steps) the column path holds for one selector; beyond, steps go one at a time. */
const MAX_COLUMN_CELLS = 16_000_000;

const EXTRAPOLATED: Record<string, { isCounter: boolean; isRate: boolean }> = {
  rate: { isCounter: true, isRate: true },
  increase: { isCounter: true, isRate: false },
  delta: { isCounter: false, isRate: false },
};

/**
 * How each aggregation the column path covers folds a member's column into its group's at the
 * steps the member is present: a sum, a count, a minimum or maximum (NaN until a first value);
 * avg sums and counts, and divides after.
 */
type Fold = (total: Float64Array, counts: Float64Array, values: Float64Array, present: Uint8Array) => void;
const COLUMN_FOLDS: Record<string, Fold> = {
  sum: (total, _counts, values, present) => {
    // Run by run of present steps (most members: one run, a day of a rate but its first steps), found natively.
    for (let [from, to] = presentRun(present, 0); from < to; [from, to] = presentRun(present, to)) {
      for (let s = from; s < to; s += 1) total[s] = total[s]! + values[s]!;
    }
  },
  count: (total, _counts, _values, present) => {
    for (let s = 0; s < present.length; s += 1) total[s] = total[s]! + present[s]!;
  },
  avg: (total, counts, values, present) => {
    for (let s = 0; s < present.length; s += 1) {
      if (!present[s]) continue;
      total[s] = total[s]! + values[s]!;
      counts[s] = counts[s]! + 1;
    }
  },
  min: (low, _counts, values, present) => {
    for (let s = 0; s < present.length; s += 1) if (present[s] && (Number.isNaN(low[s]!) || values[s]! < low[s]!)) low[s] = values[s]!;
  },
  max: (high, _counts, values, present) => {
    for (let s = 0; s < present.length; s += 1) if (present[s] && (Number.isNaN(high[s]!) || values[s]! > high[s]!)) high[s] = values[s]!;
  },
};

/** The next run of present steps at or after `from`: [start, end), empty at the end. */
function presentRun(present: Uint8Array, from: number): [number, number] {
  const start = present.indexOf(1, from);
  if (start < 0) return [present.length, present.length];
  const end = present.indexOf(0, start);
  return [start, end < 0 ? present.length : end];
}

function emptyColumn(labels: Labels, stepCount: number): Column {
  return { labels, values: new Float64Array(stepCount), present: new Uint8Array(stepCount) };
}

/** An aggregation's input one series at a time: `column(i, scratch)` is series i's column, in `scratch` or its own. */
interface Members {
  labels: Labels[];
  column: (index: number, scratch: Column) => Column;
}

/** Every member's column, each its own. */
function wholeColumns(members: Members | undefined, stepCount: number): Columns | undefined {
  return members && { kind: 'vector', series: members.labels.map((labels, i) => members.column(i, emptyColumn(labels, stepCount))) };
}

/** The groups of some series (labels as `project` makes them), in the order of their first member, and the group of each series. */
function groupsOf(members: readonly Labels[], project: (labels: Labels) => Labels, stepCount: number): { groups: Column[]; groupOf: Int32Array } {
  const index = new Map<string, number>();
  const groups: Column[] = [];
  const groupOf = new Int32Array(members.length);
  members.forEach((member, i) => {
    const labels = project(member);
    const key = signature(labels);
    let group = index.get(key);
    if (group === undefined) {
      group = groups.length;
      index.set(key, group);
      groups.push(emptyColumn(labels, stepCount));
    }
    groupOf[i] = group;
  });
  return { groups, groupOf };
}

/**
 * The first present member of each group at each step, noted member by member. The column path
 * answers only when at every step the groups' first present members come in the groups' order:
 * the step path lists a step's groups in that order, and what consumes them (a sum) adds them up
 * in it.
 */
class FirstPresent {
  private readonly first: Int32Array;
  /** Steps of each group with no member present yet: a group with none left needs no more noting. */
  private readonly missing: Int32Array;

  constructor(
    private readonly groupCount: number,
    private readonly stepCount: number,
  ) {
    this.first = new Int32Array(groupCount * stepCount).fill(-1);
    this.missing = new Int32Array(groupCount).fill(stepCount);
  }

  /** A group's first present member at each step (-1: none yet), to be filled in member order. */
  rowOf(group: number): Int32Array {
    return this.first.subarray(group * this.stepCount, (group + 1) * this.stepCount);
  }

  note(group: number, member: number, present: Uint8Array): void {
    if (this.missing[group] === 0) return;
    const first = this.rowOf(group);
    let noted = 0;
    // Run by run of the member's present steps: its group's first member there, where it has none
    // yet (a group's first member fills whole runs).
    const none = this.missing[group] === this.stepCount;
    for (let [from, to] = presentRun(present, 0); from < to; [from, to] = presentRun(present, to)) {
      if (none) {
        first.fill(member, from, to);
        noted += to - from;
        continue;
      }
      for (let s = from; s < to; s += 1) {
        if (first[s] === -1) {
          first[s] = member;
          noted += 1;
        }
      }
    }
    this.missing[group] = this.missing[group]! - noted;
  }

  /** Marks the steps where a group has a member present. */
  presentIn(group: number, present: Uint8Array): void {
    if (this.missing[group] === 0) {
      present.fill(1);
      return;
    }
    const first = this.rowOf(group);
    for (let s = 0; s < this.stepCount; s += 1) present[s] = first[s] === -1 ? 0 : 1;
  }

  inOrder(): boolean {
    // Group by group (each one's row read in a line, not a step's groups a row apart).
    const last = new Int32Array(this.stepCount).fill(-1);
    for (let g = 0; g < this.groupCount; g += 1) {
      const first = this.rowOf(g);
      for (let s = 0; s < this.stepCount; s += 1) {
        const member = first[s]!;
        if (member === -1) continue;
        if (member < last[s]!) return false;
        last[s] = member;
      }
    }
    return true;
  }
}

/** The columns by their matching key; undefined when two share one. */
function uniqueByKey(columns: readonly Column[], matching: VectorMatching): Map<string, Column> | undefined {
  const byKey = new Map<string, Column>();
  for (const column of columns) {
    const key = matchingKey(column.labels, matching);
    if (byKey.has(key)) return undefined;
    byKey.set(key, column);
  }
  return byKey;
}

/** The columns with a value at some step, as a range query's series; undefined when two share their labels (the step path merges them). */
function seriesOfColumns(columns: readonly Column[], steps: Float64Array): RangeSeries[] | undefined {
  const signatures = new Set<string>();
  const out: RangeSeries[] = [];
  for (const column of columns) {
    const { present, values } = column;
    let count = 0;
    for (let s = 0; s < steps.length; s += 1) count += present[s]!;
    if (count === 0) continue;
    const series: RangeSeries = { labels: column.labels, times: new Float64Array(count), values: new Float64Array(count) };
    for (let s = 0, point = 0; s < steps.length; s += 1) {
      if (!present[s]) continue;
      series.times[point] = steps[s]!;
      series.values[point] = values[s]!;
      point += 1;
    }
    const key = signature(column.labels);
    if (signatures.has(key)) return undefined;
    signatures.add(key);
    out.push(series);
  }
  return out;
}

// --- aggregations -------------------------------------------------------------------------------

type Group = { labels: Labels; samples: Sample[] };
type Aggregation = (groups: Group[], param: Value | undefined) => Sample[];

const perGroup =
  (reduce: (values: number[]) => number): Aggregation =>
  (groups) =>
    groups.map((group) => ({ labels: group.labels, value: reduce(group.samples.map((sample) => sample.value)) }));

type Numbers = ArrayLike<number>;

function sum(values: Numbers): number {
  let total = 0;
  for (let i = 0; i < values.length; i += 1) total += values[i]!;
  return total;
}
const mean = (values: Numbers) => sum(values) / values.length;
function variance(values: Numbers): number {
  const average = mean(values);
  let total = 0;
  for (let i = 0; i < values.length; i += 1) total += (values[i]! - average) ** 2;
  return total / values.length;
}
function minimum(values: Numbers): number {
  let low = NaN;
  for (let i = 0; i < values.length; i += 1) if (Number.isNaN(low) || values[i]! < low) low = values[i]!;
  return low;
}
function maximum(values: Numbers): number {
  let high = NaN;
  for (let i = 0; i < values.length; i += 1) if (Number.isNaN(high) || values[i]! > high) high = values[i]!;
  return high;
}

/** Prometheus's quantile: linear interpolation between the closest ranks. */
function quantile(q: number, values: Numbers): number {
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

const AGGREGATIONS: Record<string, Aggregation> = {
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

// --- functions ----------------------------------------------------------------------------------

type PromFunction = (args: PromNode[], t: number, ev: Evaluation) => Value;

const vectorResult = (samples: Sample[]): Value => ({ kind: 'vector', samples });

/** A function of each element's value; the metric name is dropped, as in Prometheus. */
const elementwise =
  (apply: (value: number, args: PromNode[], t: number, ev: Evaluation) => number): PromFunction =>
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

/** countResets of each loaded series, kept for the step path (it asks at every step). */
const resetCounts = new WeakMap<Float64Array, Int32Array>();
/** The counts of a series without resets (most counters): zeros, shared and never written. */
let noResets = new Int32Array(0);

function resetCountsOf(values: Float64Array): Int32Array {
  let counts = resetCounts.get(values);
  if (!counts) resetCounts.set(values, (counts = countResets(values)));
  return counts;
}

/** How many counter resets the samples hold up to each index (`knownNone`: the source knows there are none). */
function countResets(values: Float64Array, knownNone = false): Int32Array {
  let first = knownNone ? values.length : 1;
  while (first < values.length && !(values[first]! < values[first - 1]!)) first += 1;
  if (first >= values.length) {
    if (noResets.length < values.length) noResets = new Int32Array(values.length);
    return noResets;
  }
  const counts = new Int32Array(values.length);
  for (let i = first; i < values.length; i += 1) counts[i] = counts[i - 1]! + (values[i]! < values[i - 1]! ? 1 : 0);
  return counts;
}

/**
 * rate, increase or delta at each of `refs` into `into`: extrapolatedChange of each window (ref -
 * rangeMs, ref] with two samples or more. Evenly spaced samples put window after window at the
 * same distances from the range's edges: what extrapolatedChange derives from those (four of its
 * five divisions, most of a rate's cost) is kept while they stay, the same operations on the
 * same operands giving the same numbers. A counter whose first value is above result × zeroBound
 * cannot reach zero after the range's start (the margin covers rounding), so the factor kept
 * holds; nearer, or with times where `ref - rangeStart` is not exactly the range, the window
 * takes extrapolatedChange's own path.
 *
 * `refStep` is the references' spacing when they are whole milliseconds evenly spaced (else 0).
 * Where the samples are evenly spaced too (the sampler writes on its interval's grid) by a
 * divisor of it, each step's window is the last one moved by `stride` samples: a block of such
 * steps is computed without looking for its window (half of a step's cost). Times, references
 * and range are whole milliseconds there, so the distances are exact and the window found
 * by moving is the one `advance` would find. `knownSpacing`: the samples' spacing when the source
 * knows it (StoredSeries.evenSpacing), not looked for then.
 */
function changeColumn(
  times: Float64Array,
  values: Float64Array,
  resets: Int32Array | undefined,
  refs: Float64Array,
  refStep: number,
  rangeMs: number,
  isRate: boolean,
  into: Column,
  knownSpacing?: number,
): void {
  const { values: out, present } = into;
  const rangeSeconds = rangeMs / 1000;
  const hasResets = resets !== undefined && times.length > 0 && resets[times.length - 1]! > 0;
  const moving = refStep > 0 && Number.isInteger(rangeMs);
  present.fill(0);
  let toStartMs = NaN;
  let sampledMs = NaN;
  let toEndMs = NaN;
  let count = 0;
  let factor = 0;
  let zeroBound = 0;
  // Samples [evenFrom, evenTo] are `evenSpacing` apart (found once per run of them, or known from the source).
  const evenThroughout = knownSpacing !== undefined && times.length > 0;
  let evenFrom = evenThroughout ? 0 : -1;
  let evenTo = evenThroughout ? times.length - 1 : -1;
  let evenSpacing = evenThroughout ? knownSpacing : 0;
  // The window (low, high] of each step, advanced from the last step's (as rangeSelect does).
  let low = -1;
  let high = -1;
  for (let s = 0; s < refs.length; s += 1) {
    const ref = refs[s]!;
    const rangeStart = ref - rangeMs;
    high = advance(times, ref, high);
    low = advance(times, rangeStart - 1, low);
    if (high - low < 2) continue;
    const start = low + 1;
    const firstT = times[start]!;
    const lastT = times[high]!;
    if (firstT - rangeStart !== toStartMs || lastT - firstT !== sampledMs || ref - lastT !== toEndMs || high - low !== count) {
      toStartMs = firstT - rangeStart;
      sampledMs = lastT - firstT;
      toEndMs = ref - lastT;
      count = high - low;
      factor = extrapolation(sampledMs / 1000, count, toStartMs / 1000, toEndMs / 1000);
      zeroBound = (toStartMs / sampledMs) * (1 + 1e-9);
    }
    // How many steps after this one have its window moved by `stride` samples: the samples from
    // the one before the window to the one after the last moved window are evenly spaced.
    let more = 0;
    let stride = 0;
    if (moving && low >= 0 && Number.isInteger(times[low]!)) {
      const spacing = times[start]! - times[low]!;
      stride = refStep / spacing;
      if (Number.isInteger(stride)) {
        if (spacing !== evenSpacing || low < evenFrom || low > evenTo) {
          evenFrom = low;
          evenTo = evenUntil(times, low, spacing);
          evenSpacing = spacing;
        }
        more = Math.max(0, Math.min(refs.length - 1 - s, Math.floor((evenTo - high - 1) / stride)));
      }
    }
    for (let k = 0; k <= more; k += 1) {
      const at = s + k;
      const from = start + k * stride;
      const to = high + k * stride;
      const first = values[from]!;
      const result = hasResets ? changeIn(values, from, to + 1, resets) : values[to]! - first;
      // Moving, references and range are whole milliseconds: `ref - rangeMs` is exact.
      if ((!moving && refs[at]! - (refs[at]! - rangeMs) !== rangeMs) || (resets && result > 0 && first >= 0 && !(first > result * zeroBound))) {
        out[at] = extrapolatedChange(times, values, from, to + 1, refs[at]! - rangeMs, refs[at]!, resets, isRate);
      } else {
        const change = result * factor;
        out[at] = isRate ? change / rangeSeconds : change;
      }
      present[at] = 1;
    }
    s += more;
    low += more * stride;
    high += more * stride;
  }
}

/** The last index j ≥ from with times[from..j] `spacing` apart. */
function evenUntil(times: Float64Array, from: number, spacing: number): number {
  let j = from;
  while (j + 1 < times.length && times[j + 1]! - times[j]! === spacing) j += 1;
  return j;
}

/** The spacing of references that are whole milliseconds `spacing` apart, exactly; else 0. */
function evenSpacingOf(refs: Float64Array): number {
  if (refs.length < 2) return 0;
  const spacing = refs[1]! - refs[0]!;
  if (!(spacing > 0) || !Number.isInteger(spacing) || !Number.isInteger(refs[0]!)) return 0;
  for (let s = 2; s < refs.length; s += 1) if (refs[s] !== refs[0]! + s * spacing) return 0;
  return spacing;
}

/**
 * rate, increase or delta of samples [start, end) (at least two) in the range (rangeStart,
 * rangeEnd]: the change, extrapolated to the range's edges as Prometheus does.
 */
function extrapolatedChange(times: Float64Array, values: Float64Array, start: number, end: number, rangeStart: number, rangeEnd: number, resets: Int32Array | undefined, isRate: boolean): number {
  const first = values[start]!;
  const result = changeIn(values, start, end, resets);
  const firstT = times[start]!;
  const lastT = times[end - 1]!;
  const sampled = (lastT - firstT) / 1000;
  let toStart = (firstT - rangeStart) / 1000;
  if (resets && result > 0 && first >= 0) {
    const toZero = sampled * (first / result);
    if (toZero < toStart) toStart = toZero;
  }
  const change = result * extrapolation(sampled, end - start, toStart, (rangeEnd - lastT) / 1000);
  return isRate ? change / ((rangeEnd - rangeStart) / 1000) : change;
}

/** The change from the first sample to the last; with a counter's resets (resetCountsOf), the windows that hold one add what each reset dropped. */
function changeIn(values: Float64Array, start: number, end: number, resets: Int32Array | undefined): number {
  let result = values[end - 1]! - values[start]!;
  if (resets && resets[end - 1]! - resets[start]! > 0) {
    for (let i = start + 1; i < end; i += 1) if (values[i]! < values[i - 1]!) result += values[i - 1]!;
  }
  return result;
}

/**
 * The factor a change over `sampled` seconds (`count` samples) is extrapolated by: to the range's
 * edges (`toStart`/`toEnd` seconds away) when they are within 110% of the samples' average
 * spacing, else by half of it.
 */
function extrapolation(sampled: number, count: number, toStart: number, toEnd: number): number {
  const average = sampled / (count - 1);
  const threshold = average * 1.1;
  let interval = sampled;
  interval += toStart < threshold ? toStart : average / 2;
  interval += toEnd < threshold ? toEnd : average / 2;
  return interval / sampled;
}

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

/** Prometheus's bucket interpolation for histogram_quantile. */
function bucketQuantile(q: number, buckets: { upper: number; count: number }[]): number {
  if (Number.isNaN(q)) return NaN;
  if (q < 0) return -Infinity;
  if (q > 1) return Infinity;
  buckets.sort((a, b) => a.upper - b.upper);
  if (buckets.length < 2 || buckets[buckets.length - 1]!.upper !== Infinity) return NaN;
  // Counts must not fall as bounds rise (they may, from scraping between increments).
  for (let i = 1; i < buckets.length; i += 1) if (buckets[i]!.count < buckets[i - 1]!.count) buckets[i]!.count = buckets[i - 1]!.count;
  const total = buckets[buckets.length - 1]!.count;
  if (total === 0) return NaN;
  const rank = q * total;
  let b = buckets.findIndex((bucket) => bucket.count >= rank);
  if (b === buckets.length - 1) return buckets[buckets.length - 2]!.upper;
  if (b === 0 && buckets[0]!.upper <= 0) return buckets[0]!.upper;
  if (b < 0) b = buckets.length - 1;
  const start = b === 0 ? 0 : buckets[b - 1]!.upper;
  const end = buckets[b]!.upper;
  const below = b === 0 ? 0 : buckets[b - 1]!.count;
  const inBucket = buckets[b]!.count - below;
  return start + (end - start) * ((rank - below) / inBucket);
}

const dateFunction = (read: (date: Date) => number): PromFunction => {
  return (args, t, ev) => {
    const samples = args.length === 0 ? [{ labels: {}, value: t / 1000 }] : ev.vector(args[0]!, t);
    return vectorResult(samples.map((sample) => ({ labels: withoutName(sample.labels), value: read(new Date(sample.value * 1000)) })));
  };
};

const FUNCTIONS: Record<string, PromFunction> = {
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
  clamp: elementwise((value, args, t, ev) => Math.max(ev.scalar(args[1]!, t), Math.min(ev.scalar(args[2]!, t), value))),
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
  sort: (args, t, ev) => vectorResult([...ev.vector(args[0]!, t)].sort((a, b) => a.value - b.value)),
  sort_desc: (args, t, ev) => vectorResult([...ev.vector(args[0]!, t)].sort((a, b) => b.value - a.value)),
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
    return vectorResult(
      ev.vector(args[0]!, t).map((sample) => {
        const match = regex.matcher(sample.labels[source] ?? '');
        if (!match.matches()) return sample;
        // A group that does not exist or did not take part reads as "" (Go's Expand does the same).
        const group = (name: string | number) => {
          try {
            return match.group(name) ?? '';
          } catch {
            return '';
          }
        };
        const value = replacement.replace(/\$(\d+)|\$\{(\w+)\}/g, (_whole, index: string | undefined, name: string | undefined) => (index ? group(Number(index)) : group(name!)));
        const labels: Record<string, string> = { ...sample.labels };
        if (value === '') delete labels[destination];
        else labels[destination] = value;
        return { labels, value: sample.value };
      }),
    );
  },
  label_join: (args, t, ev) => {
    const [destination, separator, ...sources] = args.slice(1).map((arg) => ev.text(arg, t)) as [string, string, ...string[]];
    return vectorResult(
      ev.vector(args[0]!, t).map((sample) => {
        const value = sources.map((source) => sample.labels[source] ?? '').join(separator);
        const labels: Record<string, string> = { ...sample.labels };
        if (value === '') delete labels[destination];
        else labels[destination] = value;
        return { labels, value: sample.value };
      }),
    );
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

const LE: readonly string[] = ['le'];

function parseBound(text: string): number {
  if (text === '+Inf' || text === 'Inf') return Infinity;
  return Number(text);
}

/**
 * A value as Prometheus's JSON writes it (Go's FormatFloat 'f', -1): NaN, +Inf, -Inf, or the
 * shortest decimal that reads back as the value, always in positional notation (0.0000001 where
 * JavaScript writes 1e-7) and with the sign of a negative zero.
 */
export function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  const text = String(value);
  if (text.includes('e')) return positional(text);
  return value === 0 && Object.is(value, -0) ? '-0' : text;
}

/** JavaScript's exponent notation (`-1.25e-7`: one digit before the point) written out with the same digits. */
function positional(text: string): string {
  const sign = text.startsWith('-') ? '-' : '';
  const [mantissa, exponent] = text.slice(sign.length).split('e') as [string, string];
  const digits = mantissa.replace('.', '');
  // Where the decimal point goes among the digits.
  const point = 1 + Number(exponent);
  // Below 1e-6 the point comes before the digits, from 1e21 after them (JavaScript writes no other in exponent notation).
  return point <= 0 ? `${sign}0.${'0'.repeat(-point)}${digits}` : `${sign}${digits}${'0'.repeat(point - digits.length)}`;
}

/** Whether a series' labels satisfy every matcher (a missing label reads as ""). */
export function matchesAll(labels: Labels, matchers: readonly LabelMatcher[], patterns = new Map<string, LabelPattern>()): boolean {
  for (const matcher of matchers) {
    const value = labels[matcher.label] ?? '';
    switch (matcher.op) {
      case '=':
        if (value !== matcher.value) return false;
        break;
      case '!=':
        if (value === matcher.value) return false;
        break;
      default: {
        let pattern = patterns.get(matcher.value);
        if (!pattern) patterns.set(matcher.value, (pattern = compileLabelPattern(matcher.value)));
        if (pattern.matches(value) !== (matcher.op === '=~')) return false;
      }
    }
  }
  return true;
}
