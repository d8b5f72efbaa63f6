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
// the evaluator refuses, is evaluated as asked. The points kept are kept with their JSON text too
// (slices of the answer they were written in, handed back by its writer): a refresh's answer
// copies it instead of writing most of its points again.
import { compareLabels, MAX_POINTS_PER_SERIES, refersToRangeEdges, signature } from '../promql/evaluator.js';
import type { AnsweredSeries, PointsText } from './matrix-json.js';

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
  series: AnsweredSeries[];
  bytes: number;
}

/** A range's series, to be written as its answer; `keepTexts` takes the text its writer hands back (writeMatrix). */
export interface RangeAnswer {
  series: AnsweredSeries[];
  keepTexts(texts: readonly (PointsText | undefined)[]): void;
}

const NOTHING_TO_KEEP = () => {};

export class RangeResultCache {
  /** By query, step and the steps' offset from a multiple of it; oldest used first. */
  private readonly kept = new Map<string, Kept>();
  private bytes = 0;

  /** `maxBytes`: most bytes kept over every query (a point takes 20: its time, value and where its text ends; and its text, ~20-34). */
  constructor(private readonly maxBytes: number) {}

  /**
   * The answer to `request`: its kept steps, and `evaluate` of the others (a range after them).
   * Its series come with the text of the points kept before (`text`), and how many of their first
   * points settled (`keepPoints`): the text of those is kept once the answer is written.
   */
  async answer(request: RangeRequest, evaluate: (startMs: number, endMs: number) => Promise<AnsweredSeries[]>): Promise<RangeAnswer> {
    const { query, startMs, endMs, stepMs, generation } = request;
    const splittable = Number.isInteger(startMs) && Number.isInteger(stepMs) && stepMs > 0 && startMs <= endMs && (endMs - startMs) / stepMs <= MAX_POINTS_PER_SERIES && !refersToRangeEdges(query);
    if (!splittable) return { series: await evaluate(startMs, endMs), keepTexts: NOTHING_TO_KEEP };
    const key = `${stepMs} ${(((startMs % stepMs) + stepMs) % stepMs).toString()} ${query}`;
    const kept = this.take(key);
    let series: AnsweredSeries[];
    if (kept && kept.generation === generation && kept.fromMs <= startMs && startMs <= kept.toMs) {
      const keptTo = Math.min(kept.toMs, endMs);
      const reused = within(kept.series, startMs, keptTo);
      series = keptTo < endMs ? joined(reused, await evaluate(keptTo + stepMs, endMs)) : reused;
    } else {
      series = await evaluate(startMs, endMs);
    }
    const settled = Math.min(endMs, request.nowMs - SETTLE_MS);
    if (settled < startMs) return { series, keepTexts: NOTHING_TO_KEEP };
    const toMs = startMs + Math.floor((settled - startMs) / stepMs) * stepMs;
    // What is kept of each answered series (undefined: none of its points settled).
    const keptOf: (AnsweredSeries | undefined)[] = [];
    const answered = series.map((one) => {
      let count = one.times.length;
      while (count > 0 && one.times[count - 1]! > toMs) count -= 1;
      keptOf.push(count === 0 ? undefined : { labels: one.labels, times: one.times.subarray(0, count), values: one.values.subarray(0, count) });
      return count === 0 ? one : { ...one, keepPoints: count };
    });
    const entry: Kept = { generation, fromMs: startMs, toMs, series: keptOf.filter((one) => one !== undefined), bytes: 0 };
    entry.bytes = bytesOf(entry.series);
    this.keep(key, entry);
    const keepTexts = (texts: readonly (PointsText | undefined)[]) => {
      texts.forEach((text, i) => {
        if (text && keptOf[i]) keptOf[i].text = text;
      });
      // The texts are slices of one answer, which they keep whole.
      const answerBytes = texts.find((text) => text !== undefined)?.bytes.buffer.byteLength ?? 0;
      if (this.kept.get(key) === entry) {
        entry.bytes += answerBytes;
        this.bytes += answerBytes;
        this.evict();
      }
    };
    return { series: answered, keepTexts };
  }

  /** The entry under `key`, taken out (it goes back in as the newest, or not at all). */
  private take(key: string): Kept | undefined {
    const kept = this.kept.get(key);
    if (kept) {
      this.kept.delete(key);
      this.bytes -= kept.bytes;
    }
    return kept;
  }

  private keep(key: string, entry: Kept): void {
    if (entry.bytes > this.maxBytes) return;
    this.take(key);
    this.kept.set(key, entry);
    this.bytes += entry.bytes;
    this.evict();
  }

  /** Forgets the oldest used entries until the rest fit. */
  private evict(): void {
    for (const [oldest, old] of this.kept) {
      if (this.bytes <= this.maxBytes) break;
      this.kept.delete(oldest);
      this.bytes -= old.bytes;
    }
  }
}

/** Bytes of the points kept: each one's time, value and where its text ends (the texts are counted as they come). */
function bytesOf(series: readonly AnsweredSeries[]): number {
  return series.reduce((total, one) => total + one.times.length * 20, 0);
}

/** The text of points [low, high) of a text (undefined when it has none of them). */
function textWithin(text: PointsText, low: number, high: number): PointsText | undefined {
  const to = Math.min(high, text.ends.length);
  if (to <= low) return undefined;
  // After point low - 1 comes its comma, then point low.
  const from = low === 0 ? 0 : text.ends[low - 1]! + 1;
  return { bytes: text.bytes.subarray(from, text.ends[to - 1]), ends: text.ends.slice(low, to).map((end) => end - from) };
}

/** The points of each series at times in [fromMs, toMs], with their text; series with none left out. */
function within(series: readonly AnsweredSeries[], fromMs: number, toMs: number): AnsweredSeries[] {
  const out: AnsweredSeries[] = [];
  for (const { labels, times, values, text } of series) {
    let low = 0;
    while (low < times.length && times[low]! < fromMs) low += 1;
    let high = times.length;
    while (high > low && times[high - 1]! > toMs) high -= 1;
    if (high === low) continue;
    if (low === 0 && high === times.length) out.push({ labels, times, values, text });
    else out.push({ labels, times: times.slice(low, high), values: values.slice(low, high), text: text && textWithin(text, low, high) });
  }
  return out;
}

/** The series of `before` followed by those of `after` (all of whose times are later), in the evaluator's order. */
function joined(before: readonly AnsweredSeries[], after: readonly AnsweredSeries[]): AnsweredSeries[] {
  const bySignature = new Map(before.map((series) => [signature(series.labels), { ...series }]));
  for (const series of after) {
    const key = signature(series.labels);
    const earlier = bySignature.get(key);
    if (earlier) bySignature.set(key, { labels: earlier.labels, times: concatenated(earlier.times, series.times), values: concatenated(earlier.values, series.values), text: earlier.text });
    else bySignature.set(key, series);
  }
  return [...bySignature.values()].sort((a, b) => compareLabels(a.labels, b.labels));
}

function concatenated(first: Float64Array, second: Float64Array): Float64Array {
  const both = new Float64Array(first.length + second.length);
  both.set(first);
  both.set(second, first.length);
  return both;
}
