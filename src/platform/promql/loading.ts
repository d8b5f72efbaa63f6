// What a query reads: the series of each of its selectors, loaded once for the whole query over
// the times its evaluation can reach, and the time each selector reads at.
import { EXTRAPOLATED } from './counter-changes.js';
import { LOOKBACK_MS, type Labels, type SampleSource, type StoredSeries, type Window } from './model.js';
import { children, unparenthesized, type CallNode, type SelectorNode } from './nodes.js';
import type { PromNode, TimeModifiers } from './parser.js';

/** The numbers as a Float64Array: the store's own when it answered one, else a copy. */
function asDoubles(numbers: ArrayLike<number>): Float64Array {
  return numbers instanceof Float64Array ? numbers : Float64Array.from(numbers);
}

/** Arrays an evaluation reuses to read one series at a time (see LoadedSeries.read); they grow to the longest. */
export class SampleBuffers {
  times = new Float64Array(0);
  values = new Float64Array(0);

  holding(count: number): { times: Float64Array; values: Float64Array } {
    if (this.times.length < count) [this.times, this.values] = [new Float64Array(count), new Float64Array(count)];
    return { times: this.times.subarray(0, count), values: this.values.subarray(0, count) };
  }
}

/** A selector's series as loaded: whole, in arrays of its own (the step path), or read through an evaluation's buffers (the column path). */
export class LoadedSeries {
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

export class LoadedQuery {
  /** Samples of each selector, loaded once for the whole query. */
  readonly series = new Map<PromNode, LoadedSeries[]>();
  /** The rate/increase/delta calls over each range selector (see ColumnEvaluation.sharedChangesOf). */
  readonly changesOver = new Map<PromNode, CallNode[]>();

  private constructor(
    readonly startMs: number,
    readonly endMs: number,
  ) {}

  static async load(source: SampleSource, tree: PromNode, startMs: number, endMs: number): Promise<LoadedQuery> {
    const query = new LoadedQuery(startMs, endMs);
    const windows: { node: SelectorNode; from: number; to: number }[] = [];
    query.collect(tree, startMs, endMs, windows);
    await Promise.all(
      windows.map(async (window) => {
        const series = await source.select(window.node.matchers, window.from, window.to);
        query.series.set(
          window.node,
          series.map((s) => new LoadedSeries(s)),
        );
      }),
    );
    return query;
  }

  /** The time a selector or subquery reads at, for an evaluation at `t`. */
  reference(modifiers: TimeModifiers, t: number): number {
    const base = modifiers.at === 'start' ? this.startMs : modifiers.at === 'end' ? this.endMs : (modifiers.at ?? t);
    return base - modifiers.offsetMs;
  }

  /** Which samples each selector needs when its expression is evaluated at times in [from, to]. */
  private collect(node: PromNode, from: number, to: number, out: { node: SelectorNode; from: number; to: number }[]): void {
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
}
