// A PromQL evaluator over stored samples, following Prometheus 2.x's engine: instant vector
// selectors look back 5 minutes for their newest sample, range selectors take the samples in
// [t - range, t], subqueries evaluate their expression at step-aligned times, rate/increase/delta
// extrapolate as Prometheus does, and binary operators match vectors by their labels. It covers
// what dashboards and alert rules use; anything else is refused by name (UnsupportedQueryError),
// never answered with a wrong number.
//
// evaluator.ts is the query API; the step path (step-path.ts) evaluates an expression at one time,
// the column path (column-path.ts) a range query's expression over every step at once.
import { AGGREGATIONS } from './aggregations.js';
import { seriesOfColumns } from './column-parts.js';
import { ColumnEvaluation } from './column-path.js';
import { FUNCTIONS } from './functions.js';
import { compareLabels } from './labels.js';
import { LoadedQuery } from './loading.js';
import { MAX_POINTS_PER_SERIES, UnsupportedQueryError, type QueryResult, type SampleSource } from './model.js';
import { children } from './nodes.js';
import { parsePromQL, TYPE_NAMES, type PromNode } from './parser.js';
import { SeriesBuilder, StepEvaluation } from './step-path.js';

export { LOOKBACK_MS, MAX_POINTS_PER_SERIES, UnsupportedQueryError, type Labels, type QueryResult, type RangeSeries, type SampleSource, type StoredSeries } from './model.js';
export { compareLabels, matchesAll, signature } from './labels.js';

/** Evaluates `query` at one time. */
export async function instantQuery(source: SampleSource, query: string, timeMs: number): Promise<QueryResult> {
  const tree = parse(query);
  const evaluation = new StepEvaluation(await LoadedQuery.load(source, tree, timeMs, timeMs));
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
 * What dashboards chart is evaluated a node at a time over every step (column-path.ts),
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
  const loaded = await LoadedQuery.load(source, tree, startMs, endMs);
  const steps: number[] = [];
  for (let t = startMs; t <= endMs; t += stepMs) steps.push(t);
  const stepTimes = Float64Array.from(steps);
  const columns = options.stepByStep ? undefined : new ColumnEvaluation(loaded).columnsOf(tree, stepTimes);
  let result = columns?.kind === 'vector' ? seriesOfColumns(columns.series, stepTimes) : undefined;
  if (!result) {
    const evaluation = new StepEvaluation(loaded);
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
