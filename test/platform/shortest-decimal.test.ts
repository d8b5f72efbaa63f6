// The digits a range answer writes for its values without making strings (shortest-decimal.ts):
// held to JavaScript's String() — the shortest digits that read back as the same number, which is
// also what Prometheus writes (Go's FormatFloat 'f', -1) — over a million values of every shape a
// metric takes, and it must write nearly all of them itself (declining everything would pass the
// comparison and help no one).
import { describe, expect, it } from '@jest/globals';
import { MAX_DECIMAL_BYTES, writeShortestDecimal } from '../../src/platform/json/shortest-decimal.js';

// Read once: in jest's vm context a global looked up in the loops below (1.6 million values) costs
// more than the work itself.
const { abs, floor, imul, round } = Math;
const toText = String;

/** A deterministic pseudo-random sequence in [0, 1) with 53 random bits (mulberry32 twice): the same values every run. */
function random(seed: number): () => number {
  let state = seed;
  const word = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = imul(state ^ (state >>> 15), 1 | state);
    t = (t + imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return (t ^ (t >>> 14)) >>> 0;
  };
  return () => (word() * 2 ** 21 + (word() >>> 11)) / 2 ** 53;
}

const next = random(7);
const bits = new Float64Array(1);
const words = new Uint32Array(bits.buffer);

/** A double of random bits, either sign, of a magnitude String() writes without an exponent (2^-16 to 2^69). */
function fromRandomBits(): number {
  words[0] = floor(next() * 2 ** 32);
  const exponent = 1023 - 16 + floor(next() * 86);
  words[1] = (next() < 0.5 ? 0x80000000 : 0) + exponent * 2 ** 20 + floor(next() * 2 ** 20);
  return bits[0]!;
}

/** The doubles just below and above `value` (`steps` units in the last place away). */
function neighbour(value: number, steps: number): number {
  bits[0] = value;
  const low = words[0]! + steps;
  words[0] = low >>> 0;
  if (low < 0) words[1] = words[1]! - 1;
  if (low > 0xffffffff) words[1] = words[1]! + 1;
  return bits[0];
}

const COUNT = 200_000;
/** Values of every shape a metric takes, which the writer must nearly all write itself. */
const METRIC_SHAPES: Record<string, () => number> = {
  'rates of steady counters (17 digits)': () => (floor(next() * 5_000) * 20) / 285,
  'random fractions of 100': () => 100 * next(),
  'decimals of 1 to 17 significant digits': () => round(next() * 10 ** floor(next() * 17)) / 10 ** floor(next() * 12),
  'integers up to 2^53, either sign': () => (next() < 0.5 ? -1 : 1) * floor(next() * 2 ** floor(next() * 54)),
  'negative values of every magnitude': () => -next() * 10 ** floor(next() * 20 - 5),
};
/** Values chosen to be hard (few bits, halfway cases, powers of two): written right when written at all. */
const HARD_SHAPES: Record<string, () => number> = {
  'doubles of random bits': fromRandomBits,
  'neighbours of powers of ten and two': () => neighbour(next() < 0.5 ? 10 ** floor(next() * 22 - 5) : 2 ** floor(next() * 70 - 16), floor(next() * 9) - 4),
  // Exact halves at the 17th digit (1065806454216255.25) are declined: round-half-even's case.
  'multiples of 2^-8 up to 2^44': () => floor(next() * 2 ** 52) / 256,
};

/** What the writer makes of `count` values: the wrong ones (up to 5), how many it declined of those in [1e-5, 2^53). */
function writeMany(count: number, make: () => number): { wrong: string[]; declined: number; inRange: number } {
  const out = Buffer.alloc(64);
  const wrong: string[] = [];
  let declined = 0;
  let inRange = 0;
  for (let i = 0; i < count; i += 1) {
    const value = make();
    const expected = toText(value);
    if (expected.includes('e')) continue;
    const magnitude = abs(value);
    const writable = magnitude >= 1e-5 && magnitude < 2 ** 53;
    if (writable) inRange += 1;
    const end = writeShortestDecimal(out, 3, value);
    if (end < 0) {
      if (writable) declined += 1;
      continue;
    }
    const written = out.toString('latin1', 3, end);
    if ((written !== expected || written.length > MAX_DECIMAL_BYTES) && wrong.length < 5) wrong.push(`${expected} written as ${written}`);
  }
  return { wrong, declined, inRange };
}

describe('shortest decimal digits written as bytes', () => {
  for (const [shape, make] of Object.entries(METRIC_SHAPES)) {
    it(`writes what String() writes for ${COUNT.toLocaleString('en')} ${shape}, declining under 1 %`, () => {
      const { wrong, declined, inRange } = writeMany(COUNT, make);
      expect(wrong).toEqual([]);
      expect(inRange).toBeGreaterThan(COUNT / 2);
      expect(declined).toBeLessThan(0.01 * inRange);
    });
  }

  for (const [shape, make] of Object.entries(HARD_SHAPES)) {
    it(`writes what String() writes for ${COUNT.toLocaleString('en')} ${shape}, or declines`, () => {
      const { wrong, declined, inRange } = writeMany(COUNT, make);
      expect(wrong).toEqual([]);
      // Most are still written: a writer declining everything would not pass.
      expect(declined).toBeLessThan(0.1 * inRange);
    });
  }

  it('writes a value where it is told and nothing past its end', () => {
    const buffer = Buffer.alloc(40, 'x');
    const end = writeShortestDecimal(buffer, 5, -1234.5);
    expect(buffer.toString('latin1')).toBe(`xxxxx-1234.5${'x'.repeat(40 - 12)}`);
    expect(end).toBe(12);
    expect(buffer.toString('latin1', 0, writeShortestDecimal(buffer, 0, 0.000123))).toBe('0.000123');
    expect(buffer.toString('latin1', 0, writeShortestDecimal(buffer, 0, 0))).toBe('0');
    expect(buffer.toString('latin1', 0, writeShortestDecimal(buffer, 0, 123456789012345))).toBe('123456789012345');
  });

  it('leaves to String() what it does not write: NaN, infinities, negative zero, tiny and huge magnitudes, powers of two', () => {
    const buffer = Buffer.alloc(64, 'x');
    for (const value of [NaN, Infinity, -Infinity, -0, 1e-7, 2 ** 53, 1.5e21, 0.5, 2 ** -10, 1024.5 * 2 ** 40]) {
      const declines = writeShortestDecimal(buffer, 0, value) < 0;
      // 1024.5·2^40 is an integer below 2^53 but no power of two: written.
      expect([value, declines]).toEqual([value, value !== 1024.5 * 2 ** 40]);
    }
    expect(buffer.toString('latin1', 0, writeShortestDecimal(buffer, 0, 1024.5 * 2 ** 40))).toBe(String(1024.5 * 2 ** 40));
  });
});
