// rate, increase and delta: a counter's (or gauge's) change over a range, extrapolated to the
// range's edges as Prometheus does; at one time (the step path) or at every step of a range
// query at once (the column path).
import type { Column } from './column-parts.js';
import { advance } from './sample-index.js';

/** The functions computed here, and how each reads its samples. */
export const EXTRAPOLATED: Record<string, { isCounter: boolean; isRate: boolean }> = {
  rate: { isCounter: true, isRate: true },
  increase: { isCounter: true, isRate: false },
  delta: { isCounter: false, isRate: false },
};

/** countResets of each loaded series, kept for the step path (it asks at every step). */
const resetCounts = new WeakMap<Float64Array, Int32Array>();
/** The counts of a series without resets (most counters): zeros, shared and never written. */
let noResets = new Int32Array(0);

export function resetCountsOf(values: Float64Array): Int32Array {
  let counts = resetCounts.get(values);
  if (!counts) resetCounts.set(values, (counts = countResets(values)));
  return counts;
}

/** How many counter resets the samples hold up to each index (`knownNone`: the source knows there are none). */
export function countResets(values: Float64Array, knownNone = false): Int32Array {
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
 * five divisions) is kept while they stay, the same operations on the
 * same operands giving the same numbers. A counter whose first value is above result × zeroBound
 * cannot reach zero after the range's start (the margin covers rounding), so the factor kept
 * holds; nearer, or with times where `ref - rangeStart` is not exactly the range, the window
 * takes extrapolatedChange's own path.
 *
 * `refStep` is the references' spacing when they are whole milliseconds evenly spaced (else 0).
 * Where the samples are evenly spaced too (the sampler writes on its interval's grid) by a
 * divisor of it, each step's window is the last one moved by `stride` samples: a block of such
 * steps is computed without looking for its window. Times, references
 * and range are whole milliseconds there, so the distances are exact and the window found
 * by moving is the one `advance` would find. `knownSpacing`: the samples' spacing when the source
 * knows it (StoredSeries.evenSpacing), not looked for then.
 */
export function changeColumn(
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
export function evenSpacingOf(refs: Float64Array): number {
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
export function extrapolatedChange(
  times: Float64Array,
  values: Float64Array,
  start: number,
  end: number,
  rangeStart: number,
  rangeEnd: number,
  resets: Int32Array | undefined,
  isRate: boolean,
): number {
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
