// A number's shortest round-trip digits written positionally straight into bytes: what String()
// writes between 1e-5 and 2^53 and what Go's FormatFloat(v, 'f', -1) (Prometheus's values) always
// writes. A 24-hour dashboard's answer holds ~300,000 values: String() would leave a string each for
// the collector; this leaves nothing behind.
//
// How: the nearest 17-digit integer n to |v|·10^k is found exactly (Dekker's product: 10^k is a
// double exactly up to 10^22), then trailing digits are dropped while n rounded there stays closer
// to |v| than half the gap to its neighbouring doubles (so it still reads back as v), keeping the
// nearer rounding when both do, as shortest-digit printers do. Where that cannot be settled cheaply — a
// power of two (its lower neighbour is nearer than its upper one), a distance within rounding of
// the limit, two roundings equally near, magnitudes outside [1e-5, 2^53) — the writer declines and
// the caller uses String(). The tests hold it to String() over more than a million values.

// Read once: where this module runs in a vm context (jest's), each global lookup in the hot path
// below goes through the context's interceptor and costs more than the digit work itself.
const { abs, floor, round } = Math;
const POWERS_OF_TEN = Float64Array.from({ length: 23 }, (_, k) => Number(`1e${k}`));
/** 2^27 + 1: splits a double into two halves whose products are exact (Veltkamp). */
const SPLITTER = 134_217_729;
const POWER_HIGH = POWERS_OF_TEN.map((power) => SPLITTER * power - (SPLITTER * power - power));
const POWER_LOW = POWERS_OF_TEN.map((power, k) => power - POWER_HIGH[k]!);
const LOG10_2 = Math.log10(2);
const TWO_TO_53 = 2 ** 53;
const bits = new Float64Array(1);
const words = new Uint32Array(bits.buffer);
/** The word order read below is little-endian's; elsewhere every value goes to String(). */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const ZERO = 48;
/** The most bytes writeShortestDecimal writes: `-0.0000` and 17 digits. */
export const MAX_DECIMAL_BYTES = 26;

/**
 * Writes `value`'s shortest round-trip digits in positional notation (`-0.000123`, `1234.5`) at
 * `out[at]` and returns where they end, or -1 (nothing written) when the caller should write
 * String(value) instead. `out` must have MAX_DECIMAL_BYTES free from `at`.
 */
export function writeShortestDecimal(out: Uint8Array, at: number, value: number): number {
  if (value === (value | 0)) return value === 0 && 1 / value < 0 ? -1 : writeInteger(out, at, value);
  const magnitude = value < 0 ? -value : value;
  if (!(magnitude >= 1e-5 && magnitude < TWO_TO_53) || !LITTLE_ENDIAN) return -1;
  bits[0] = magnitude;
  const exponent = words[1]! >>> 20;
  if (words[0] === 0 && (words[1]! & 0xfffff) === 0) return -1;
  // k puts n at 17 digits: 10^16 <= magnitude·10^k < 10^17 (the estimate of log10 is never above it).
  let k = 16 - floor((exponent - 1023) * LOG10_2);
  if (k > 22) return -1;
  let product = magnitude * POWERS_OF_TEN[k]!;
  if (product >= 1e17) product = magnitude * POWERS_OF_TEN[--k]!;
  // magnitude·10^k is exactly product + error; product (>= 10^16 > 2^53) is an integer.
  const split = SPLITTER * magnitude;
  const high = split - (split - magnitude);
  const low = magnitude - high;
  const error = high * POWER_HIGH[k]! - product + high * POWER_LOW[k]! + low * POWER_HIGH[k]! + low * POWER_LOW[k]!;
  const adjust = round(error);
  // magnitude·10^k = n + fraction with n = product + adjust: n held as upper·10^8 + lower.
  const fraction = error - adjust;
  // Both below 2^31: the digit work below is integer arithmetic.
  let upper = floor(product / 1e8) | 0;
  let lower = (product - upper * 1e8 + adjust) | 0;
  while (lower < 0) {
    lower += 1e8;
    upper -= 1;
  }
  while (lower >= 1e8) {
    lower -= 1e8;
    upper += 1;
  }
  // Half the gap to the neighbouring doubles, in units of 10^-k (between 0.55 and 11.1).
  words[0] = 0;
  words[1] = (exponent - 53) << 20;
  const limit = bits[0] * POWERS_OF_TEN[k]!;
  // Drop `dropped` trailing digits while n rounded there (down, or `up`) still reads back as the value.
  const digits = upper >= 1e8 ? 17 : 16;
  let dropped = 0;
  let up = false;
  for (let j = 1; j < digits; j += 1) {
    // n's last j digits (rest) and what they lack to 10^j (complement): integers, exact where small.
    let rest: number;
    let complement: number;
    if (j <= 8) {
      rest = lower % (POWERS_OF_TEN[j]! | 0);
      complement = POWERS_OF_TEN[j]! - rest;
    } else {
      const upperRest = upper % (POWERS_OF_TEN[j - 8]! | 0);
      rest = upperRest * 1e8 + lower;
      complement = (POWERS_OF_TEN[j - 8]! - 1 - upperRest) * 1e8 + (1e8 - lower);
    }
    // The distances from magnitude·10^k to n rounded down and up there; exact when the sums were.
    const below = rest + fraction;
    const above = complement - fraction;
    const downReads = readsBack(below, rest === 0 || below - rest === fraction, limit);
    const upReads = readsBack(above, complement - above === fraction, limit);
    if (downReads < 0 || upReads < 0) return -1;
    if (!downReads && !upReads) break;
    if (downReads && upReads && below === above) return -1;
    up = downReads && upReads ? above < below : upReads === 1;
    dropped = j;
  }
  // Halfway between two 17-digit numbers: which one is the shortest digits is round-half-even's choice.
  if (dropped === 0 && (fraction === 0.5 || fraction === -0.5)) return -1;
  // The digits kept: `head` then `tailWidth` more (zero-padded) from `tail`.
  let head: number;
  let tail = 0;
  let tailWidth = 0;
  if (dropped <= 8) {
    tailWidth = 8 - dropped;
    head = upper;
    tail = ((lower / (POWERS_OF_TEN[dropped]! | 0)) | 0) + (up ? 1 : 0);
    if (tail === POWERS_OF_TEN[tailWidth]) {
      tail = 0;
      head += 1;
    }
  } else {
    head = ((upper / (POWERS_OF_TEN[dropped - 8]! | 0)) | 0) + (up ? 1 : 0);
  }
  return writeDigits(out, at, value < 0, head, tail, tailWidth, k - dropped);
}

/**
 * Whether a number `distance` (in units of 10^-k) from the value reads back as it: 1, 0, or -1 when
 * that cannot be told (the distance was rounded, and lies on the limit but for that rounding). No
 * number of fewer than 17 digits lies exactly on it (halfway between two doubles: that takes 17
 * digits or more below 2^53); it is declined all the same.
 */
function readsBack(distance: number, exact: boolean, limit: number): number {
  if (abs(distance - limit) >= limit * 1e-9) return distance < limit ? 1 : 0;
  if (!exact || distance === limit) return -1;
  return distance < limit ? 1 : 0;
}

/** An integer of at most 2^31 in magnitude. */
function writeInteger(out: Uint8Array, at: number, value: number): number {
  return writeDigits(out, at, value < 0, value < 0 ? -value : value, 0, 0, 0);
}

/** The number head·10^tailWidth + tail with `decimals` of its digits after the point (fewer than none: zeros appended). */
function writeDigits(out: Uint8Array, at: number, negative: boolean, head: number, tail: number, tailWidth: number, decimals: number): number {
  let headWidth = 1;
  while (headWidth < 10 && head >= POWERS_OF_TEN[headWidth]!) headWidth += 1;
  const width = headWidth + tailWidth;
  const length = (negative ? 1 : 0) + (decimals <= 0 ? width - decimals : decimals >= width ? decimals + 2 : width + 1);
  const end = at + length;
  // Written from the right: appended zeros, the tail's digits, the head's, with the point among them.
  let position = end;
  let written = 0;
  for (; written < -decimals; written += 1) out[--position] = ZERO;
  for (let i = 0; i < width; i += 1) {
    if (written === decimals && decimals > 0) out[--position] = 46;
    let digit: number;
    if (i < tailWidth) {
      const rest = (tail / 10) | 0;
      digit = tail - rest * 10;
      tail = rest;
    } else {
      const rest = (head / 10) | 0;
      digit = head - rest * 10;
      head = rest;
    }
    out[--position] = ZERO + digit;
    written += 1;
  }
  if (decimals >= width) {
    for (; written < decimals; written += 1) out[--position] = ZERO;
    out[--position] = 46;
    out[--position] = ZERO;
  }
  if (negative) out[position - 1] = 45;
  return end;
}
