// The column path: a range query's expression evaluated a node at a time over every step at once,
// for what dashboards chart (selectors, rate/increase/delta, sum/count/avg/min/max, arithmetic and
// comparisons, histogram_quantile). It answers exactly as the step path would, or not at all.
import { COLUMN_FOLDS, emptyColumn, FirstPresent, groupsOf, uniqueByKey, wholeColumns, type Column, type Columns, type Members } from './column-parts.js';
import { changeColumn, countResets, evenSpacingOf, EXTRAPOLATED } from './counter-changes.js';
import { bucketQuantile, LE, parseBound } from './histograms.js';
import { dropLabels, keepLabels, matchingKey, signature, withoutName } from './labels.js';
import { SampleBuffers, type LoadedQuery, type LoadedSeries } from './loading.js';
import { LOOKBACK_MS, type Labels } from './model.js';
import { unparenthesized, type CallNode, type SelectorNode } from './nodes.js';
import { arithmetic, arithmeticColumn, bothPresent, COMPARISONS, DEFAULT_MATCHING, dropsName } from './operators.js';
import type { PromNode } from './parser.js';
import { advance } from './sample-index.js';

/** Most values (series × steps) the column path holds for one selector; beyond, steps go one at a time. */
const MAX_COLUMN_CELLS = 16_000_000;

/** What makes two rate/increase/delta columns of one series the same: the function, the range and the time modifiers. */
function changeKey(node: CallNode, selector: SelectorNode): string {
  return `${node.name} ${String(selector.rangeMs)} ${selector.offsetMs} ${String(selector.at)}`;
}

export class ColumnEvaluation {
  /** Where the column path reads a series, one at a time. */
  private readonly buffers = new SampleBuffers();
  /**
   * rate/increase/delta columns of series that two of the query's selectors both select with the
   * same range and modifiers (an error ratio: `rate(x{code=~"5.."}[5m]) / rate(x[5m])`), computed
   * once, by changeKey and the series' signature; `undefined` until the query's shared series are found.
   */
  private sharedChanges: Map<string, Map<string, Column | undefined>> | undefined;

  constructor(private readonly query: LoadedQuery) {}

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
  private columnInput(node: SelectorNode, steps: Float64Array): LoadedSeries[] | undefined {
    const loaded = this.query.series.get(node) ?? [];
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

  private selectorMembers(node: SelectorNode, steps: Float64Array): Members | undefined {
    const loaded = this.columnInput(node, steps);
    if (!loaded) return undefined;
    const refs = steps.map((t) => this.query.reference(node, t));
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

  private changeMembers(node: CallNode, steps: Float64Array, kind: { isCounter: boolean; isRate: boolean }): Members | undefined {
    const selector = unparenthesized(node.args[0]!);
    if (selector.kind !== 'selector' || selector.rangeMs === undefined) return undefined;
    const loaded = this.columnInput(selector, steps);
    if (!loaded) return undefined;
    const rangeMs = selector.rangeMs;
    const { isCounter, isRate } = kind;
    const refs = steps.map((t) => this.query.reference(selector, t));
    const refStep = evenSpacingOf(refs);
    const labels = loaded.map((series) => withoutName(series.labels));
    // Series of different names alike but for it: the step path tells whether two meet at a step (an error).
    if (!distinctLabels(labels)) return undefined;
    const shared = this.sharedChangesOf(node, selector);
    return {
      labels,
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
  private sharedChangesOf(node: CallNode, selector: SelectorNode): Map<string, Column | undefined> | undefined {
    if (!this.sharedChanges) {
      this.sharedChanges = new Map();
      // Each change's series, grouped by what makes two of its columns the same.
      const selectorsByKey = new Map<string, Set<PromNode>>();
      for (const [other] of this.query.series) {
        for (const change of this.query.changesOver.get(other) ?? []) {
          const key = changeKey(change, other as SelectorNode);
          if (!selectorsByKey.has(key)) selectorsByKey.set(key, new Set());
          selectorsByKey.get(key)!.add(other);
        }
      }
      for (const [key, selectors] of selectorsByKey) {
        if (selectors.size < 2) continue;
        const seen = new Set<string>();
        const shared = new Map<string, Column | undefined>();
        for (const one of selectors) {
          for (const series of this.query.series.get(one) ?? []) {
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

  private quantileColumns(node: CallNode, steps: Float64Array): Columns | undefined {
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
    const dropName = dropsName(node.op, node.bool);
    // Each output column pairs a vector column with its partner: a scalar, or the matching column.
    const pairs: { labels: Labels; left: Column | number; right: Column | number }[] = [];
    if (left.kind === 'scalar' || right.kind === 'scalar') {
      const vector = left.kind === 'vector' ? left : (right as Columns & { kind: 'vector' });
      for (const column of vector.series) {
        const labels = dropName ? withoutName(column.labels) : column.labels;
        pairs.push(left.kind === 'scalar' ? { labels, left: left.value, right: column } : { labels, left: column, right: (right as { value: number }).value });
      }
      if (!distinctLabels(pairs.map((pair) => pair.labels))) return undefined;
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
}

function distinctLabels(labels: readonly Labels[]): boolean {
  return new Set(labels.map(signature)).size === labels.length;
}
