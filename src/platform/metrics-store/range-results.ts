// Range-query answers kept between a dashboard's refreshes, as Prometheus's query frontends
// (Thanos, Cortex) keep them: a panel asks for the same query over a window moved on by a step or
// a few, so the steps it asked for before are answered from here and only the new ones are
// evaluated. PromQL evaluates each step of a range on its own, so the answers of two ranges put
// side by side are the answer of one range over both (and the column path answers exactly as the
// step path: their tests say so).
//
// Not kept: a step whose samples may still change — within SETTLE_MS of now (samples are written
// as they are taken, a counter's born zero one interval back) — and anything kept once the store's
// generation changes (samples older than that written or deleted: a backfill, retention). A query
// whose steps depend on its range's edges (`@ start()`, `@ end()`), whose start or step is not whole
// milliseconds (its steps are made by adding the step: two ranges would not meet exactly), or that
// the evaluator refuses, is evaluated as asked.
import { compareLabels, MAX_POINTS_PER_SERIES, refersToRangeEdges, signature, type RangeSeries } from '../promql/evaluator.js';

/** How long after a step its samples may still be written (see MetricsStore.generation). */
export const SETTLE_MS = 5 * 60_000;

export interface RangeRequest {
  query: string;
  startMs: number;
  endMs: number;
  stepMs: number;
  /** The store's generation (MetricsStore.generation) before evaluating. */
  generation: number;
  nowMs: number;
}

interface Kept {
  generation: number;
  /** The steps kept: from fromMs to toMs, both included. */
  fromMs: number;
  toMs: number;
  series: RangeSeries[];
  points: number;
}

export class RangeResultCache {
  /** By query, step and the steps' offset from a multiple of it; oldest used first. */
  private readonly kept = new Map<string, Kept>();
  private points = 0;

  /** `maxPoints`: most points (a time and a value each, 16 bytes) kept over every query. */
  constructor(private readonly maxPoints: number) {}

  /** The answer to `request`: its kept steps, and `evaluate` of the others (a range after them). */
  async answer(request: RangeRequest, evaluate: (startMs: number, endMs: number) => Promise<RangeSeries[]>): Promise<RangeSeries[]> {
    const { query, startMs, endMs, stepMs, generation } = request;
    const splittable = Number.isInteger(startMs) && Number.isInteger(stepMs) && stepMs > 0 && startMs <= endMs && (endMs - startMs) / stepMs <= MAX_POINTS_PER_SERIES && !refersToRangeEdges(query);
    if (!splittable) return evaluate(startMs, endMs);
    const key = `${stepMs} ${(((startMs % stepMs) + stepMs) % stepMs).toString()} ${query}`;
    const kept = this.take(key);
    let series: RangeSeries[];
    if (kept && kept.generation === generation && kept.fromMs <= startMs && startMs <= kept.toMs) {
      const keptTo = Math.min(kept.toMs, endMs);
      const reused = within(kept.series, startMs, keptTo);
      series = keptTo < endMs ? joined(reused, await evaluate(keptTo + stepMs, endMs)) : reused;
    } else {
      series = await evaluate(startMs, endMs);
    }
    const settled = Math.min(endMs, request.nowMs - SETTLE_MS);
    if (settled >= startMs) {
      const toMs = startMs + Math.floor((settled - startMs) / stepMs) * stepMs;
      const keptSeries = within(series, startMs, toMs);
      this.keep(key, { generation, fromMs: startMs, toMs, series: keptSeries, points: pointsOf(keptSeries) });
    }
    return series;
  }

  /** The entry under `key`, taken out (it goes back in as the newest, or not at all). */
  private take(key: string): Kept | undefined {
    const kept = this.kept.get(key);
    if (kept) {
      this.kept.delete(key);
      this.points -= kept.points;
    }
    return kept;
  }

  private keep(key: string, entry: Kept): void {
    if (entry.points > this.maxPoints) return;
    this.take(key);
    this.kept.set(key, entry);
    this.points += entry.points;
    for (const [oldest, old] of this.kept) {
      if (this.points <= this.maxPoints) break;
      this.kept.delete(oldest);
      this.points -= old.points;
    }
  }
}

function pointsOf(series: readonly RangeSeries[]): number {
  return series.reduce((total, one) => total + one.times.length, 0);
}

/** The points of each series at times in [fromMs, toMs]; series with none left out. */
function within(series: readonly RangeSeries[], fromMs: number, toMs: number): RangeSeries[] {
  const out: RangeSeries[] = [];
  for (const { labels, times, values } of series) {
    let low = 0;
    while (low < times.length && times[low]! < fromMs) low += 1;
    let high = times.length;
    while (high > low && times[high - 1]! > toMs) high -= 1;
    if (high === low) continue;
    out.push(low === 0 && high === times.length ? { labels, times, values } : { labels, times: times.slice(low, high), values: values.slice(low, high) });
  }
  return out;
}

/** The series of `before` followed by those of `after` (all of whose times are later), in the evaluator's order. */
function joined(before: readonly RangeSeries[], after: readonly RangeSeries[]): RangeSeries[] {
  const bySignature = new Map(before.map((series) => [signature(series.labels), { ...series }]));
  for (const series of after) {
    const key = signature(series.labels);
    const earlier = bySignature.get(key);
    if (earlier) bySignature.set(key, { labels: earlier.labels, times: earlier.times.concat(series.times), values: earlier.values.concat(series.values) });
    else bySignature.set(key, series);
  }
  return [...bySignature.values()].sort((a, b) => compareLabels(a.labels, b.labels));
}
