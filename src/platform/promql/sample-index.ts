// Finding a series' samples by time (times ascending, in ms).

/** Index of the last time ≤ t, or -1, moving forward from `from` (an index whose time is ≤ t, or -1). */
export function advance(times: Float64Array, t: number, from: number): number {
  let index = from;
  while (index + 1 < times.length && times[index + 1]! <= t) index += 1;
  return index;
}

/** Index of the last time ≤ t, or -1. */
export function lastAtOrBefore(times: Float64Array, t: number): number {
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
