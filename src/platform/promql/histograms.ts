// Classic histograms: buckets as series labelled with their upper bound (`le`).

/** Prometheus's bucket interpolation for histogram_quantile. */
export function bucketQuantile(q: number, buckets: { upper: number; count: number }[]): number {
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

export const LE: readonly string[] = ['le'];

export function parseBound(text: string): number {
  if (text === '+Inf' || text === 'Inf') return Infinity;
  return Number(text);
}
