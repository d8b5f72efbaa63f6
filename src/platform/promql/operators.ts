// Binary operators: arithmetic and comparisons of two numbers, of a column of them (the column
// path), and vector matching (one-to-one, group_left/group_right, and/or/unless).
import { keepLabels, dropLabels, matchingKey, signature, withoutName } from './labels.js';
import { UnsupportedQueryError, type Sample } from './model.js';
import type { VectorMatching } from './parser.js';

/** Matching on every label but the name, when no on/ignoring is written (one object: projections are memoised by it). */
export const DEFAULT_MATCHING: VectorMatching = { on: false, labels: [], card: 'one-to-one', include: [] };

export const COMPARISONS = new Set(['==', '!=', '>', '<', '>=', '<=']);

/** Operators whose result is no longer the metric: Prometheus 2.x drops the name for these (not for atan2), and for a comparison with bool. */
const NAME_DROPPING = new Set(['+', '-', '*', '/', '%', '^']);

export function dropsName(op: string, bool: boolean): boolean {
  return bool || NAME_DROPPING.has(op);
}

/** Go's math.Pow, which Prometheus computes `^` with: 1 to any power, and -1 to an infinite one, is 1 (JavaScript's ** says NaN). */
function power(a: number, b: number): number {
  if (a === 1 || (a === -1 && (b === Infinity || b === -Infinity))) return 1;
  return a ** b;
}

/** Present where both are: four steps at a time where the arrays allow (each step is 0 or 1, so a word's AND is each step's). */
export function bothPresent(a: Uint8Array, b: Uint8Array, out: Uint8Array): void {
  let s = 0;
  if (a.byteOffset % 4 === 0 && b.byteOffset % 4 === 0 && out.byteOffset % 4 === 0) {
    const words = out.length >> 2;
    const [wordsOfA, wordsOfB, wordsOut] = [new Uint32Array(a.buffer, a.byteOffset, words), new Uint32Array(b.buffer, b.byteOffset, words), new Uint32Array(out.buffer, out.byteOffset, words)];
    for (let w = 0; w < words; w += 1) wordsOut[w] = wordsOfA[w]! & wordsOfB[w]!;
    s = words * 4;
  }
  for (; s < out.length; s += 1) out[s] = a[s]! & b[s]!;
}

/** `a op b` at every step into `out`: one loop per operator, not a choice of operator per step. */
export function arithmeticColumn(op: string, a: Float64Array, b: Float64Array, out: Float64Array): void {
  switch (op) {
    case '+':
      for (let s = 0; s < out.length; s += 1) out[s] = a[s]! + b[s]!;
      return;
    case '-':
      for (let s = 0; s < out.length; s += 1) out[s] = a[s]! - b[s]!;
      return;
    case '*':
      for (let s = 0; s < out.length; s += 1) out[s] = a[s]! * b[s]!;
      return;
    case '/':
      for (let s = 0; s < out.length; s += 1) out[s] = a[s]! / b[s]!;
      return;
    default:
      for (let s = 0; s < out.length; s += 1) out[s] = arithmetic(op, a[s]!, b[s]!);
  }
}

/** An operator's value; comparisons give 1 (true) or 0 (false). */
export function arithmetic(op: string, a: number, b: number): number {
  switch (op) {
    case '+':
      return a + b;
    case '-':
      return a - b;
    case '*':
      return a * b;
    case '/':
      return a / b;
    case '%':
      return a % b;
    case '^':
      return power(a, b);
    case 'atan2':
      return Math.atan2(a, b);
    case '==':
      return a === b ? 1 : 0;
    case '!=':
      return a !== b ? 1 : 0;
    case '>':
      return a > b ? 1 : 0;
    case '<':
      return a < b ? 1 : 0;
    case '>=':
      return a >= b ? 1 : 0;
    case '<=':
      return a <= b ? 1 : 0;
    default:
      throw new UnsupportedQueryError(`the operator "${op}" is not supported here`);
  }
}

export function setOperation(op: 'and' | 'or' | 'unless', lhs: Sample[], rhs: Sample[], matching: VectorMatching): Sample[] {
  const rightKeys = new Set(rhs.map((sample) => matchingKey(sample.labels, matching)));
  if (op === 'and') return lhs.filter((sample) => rightKeys.has(matchingKey(sample.labels, matching)));
  if (op === 'unless') return lhs.filter((sample) => !rightKeys.has(matchingKey(sample.labels, matching)));
  const leftKeys = new Set(lhs.map((sample) => matchingKey(sample.labels, matching)));
  return [...lhs, ...rhs.filter((sample) => !leftKeys.has(matchingKey(sample.labels, matching)))];
}

export function vectorBinary(op: string, lhs: Sample[], rhs: Sample[], matching: VectorMatching, bool: boolean, dropName: boolean): Sample[] {
  const comparison = COMPARISONS.has(op);
  // The "one" side is indexed; group_right swaps the sides' roles.
  const [many, one] = matching.card === 'one-to-many' ? [rhs, lhs] : [lhs, rhs];
  const oneByKey = new Map<string, Sample>();
  for (const sample of one) {
    const key = matchingKey(sample.labels, matching);
    if (oneByKey.has(key)) {
      const side = matching.card === 'one-to-one' ? 'right' : matching.card === 'many-to-one' ? 'right' : 'left';
      throw new UnsupportedQueryError(
        `found duplicate series for the match group on the ${side} hand-side of the operation: many-to-many matching not allowed: matching labels must be unique on one side`,
      );
    }
    oneByKey.set(key, sample);
  }
  const seen = new Set<string>();
  const out: Sample[] = [];
  for (const sample of many) {
    const key = matchingKey(sample.labels, matching);
    const partner = oneByKey.get(key);
    if (!partner) continue;
    if (matching.card === 'one-to-one') {
      if (seen.has(key))
        throw new UnsupportedQueryError(
          'found duplicate series for the match group on the left hand-side of the operation: many-to-many matching not allowed: matching labels must be unique on one side',
        );
      seen.add(key);
    }
    const [left, right] = matching.card === 'one-to-many' ? [partner, sample] : [sample, partner];
    const value = arithmetic(op, left.value, right.value);
    if (comparison && !bool && !value) continue;
    let labels = dropName ? withoutName(sample.labels) : sample.labels;
    if (matching.card === 'one-to-one') {
      labels = matching.on ? keepLabels(labels, matching.labels) : dropLabels(labels, matching.labels);
    } else {
      const copied: Record<string, string> = { ...labels };
      for (const label of matching.include) {
        if (partner.labels[label] !== undefined && partner.labels[label] !== '') copied[label] = partner.labels[label];
        else delete copied[label];
      }
      labels = copied;
    }
    out.push({ labels, value: comparison ? (bool ? value : left.value) : value });
  }
  if (matching.card !== 'one-to-one') {
    const keys = new Set<string>();
    for (const sample of out) {
      const key = signature(sample.labels);
      if (keys.has(key)) throw new UnsupportedQueryError('multiple matches for labels: grouping labels must ensure unique matches');
      keys.add(key);
    }
  }
  return out;
}
