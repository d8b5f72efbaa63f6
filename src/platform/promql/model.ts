// The evaluator's vocabulary: what a sample source answers, what a query answers, and the values
// an expression evaluates to at one time.
import type { LabelMatcher } from './parser.js';

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
export interface Window {
  labels: Labels;
  times: Float64Array;
  values: Float64Array;
  start: number;
  end: number;
}

/** A window's samples as arrays of their own length (views, not copies), for the less used functions. */
export function samplesOf(w: Window): { values: Float64Array; times: Float64Array } {
  return { values: w.values.subarray(w.start, w.end), times: w.times.subarray(w.start, w.end) };
}

export type Value = { kind: 'scalar'; value: number } | { kind: 'string'; value: string } | { kind: 'vector'; samples: Sample[] } | { kind: 'matrix'; series: Window[] };

export function vectorOf(value: Value): Sample[] {
  if (value.kind !== 'vector') throw new UnsupportedQueryError(`expected an instant vector, got a ${value.kind}`);
  return value.samples;
}

export const vectorResult = (samples: Sample[]): Value => ({ kind: 'vector', samples });
