// The column path's data: one series of a range query at every step (a column), and how columns
// are folded into groups and turned into a range query's series.
import { matchingKey, signature } from './labels.js';
import type { Labels, RangeSeries } from './model.js';
import type { VectorMatching } from './parser.js';

/** One series of a range query at every step: its value at each, and whether it has one there. */
export interface Column {
  labels: Labels;
  values: Float64Array;
  present: Uint8Array;
}

export type Columns = { kind: 'scalar'; value: number } | { kind: 'vector'; series: Column[] };

/**
 * How each aggregation the column path covers folds a member's column into its group's at the
 * steps the member is present: a sum, a count, a minimum or maximum (NaN until a first value);
 * avg sums and counts, and divides after.
 */
type Fold = (total: Float64Array, counts: Float64Array, values: Float64Array, present: Uint8Array) => void;
export const COLUMN_FOLDS: Record<string, Fold> = {
  sum: (total, _counts, values, present) => {
    // Run by run of present steps (most members: one run, a day of a rate but its first steps), found natively.
    for (let [from, to] = presentRun(present, 0); from < to; [from, to] = presentRun(present, to)) {
      for (let s = from; s < to; s += 1) total[s] = total[s]! + values[s]!;
    }
  },
  count: (total, _counts, _values, present) => {
    for (let s = 0; s < present.length; s += 1) total[s] = total[s]! + present[s]!;
  },
  avg: (total, counts, values, present) => {
    for (let s = 0; s < present.length; s += 1) {
      if (!present[s]) continue;
      total[s] = total[s]! + values[s]!;
      counts[s] = counts[s]! + 1;
    }
  },
  min: (low, _counts, values, present) => {
    for (let s = 0; s < present.length; s += 1) if (present[s] && (Number.isNaN(low[s]!) || values[s]! < low[s]!)) low[s] = values[s]!;
  },
  max: (high, _counts, values, present) => {
    for (let s = 0; s < present.length; s += 1) if (present[s] && (Number.isNaN(high[s]!) || values[s]! > high[s]!)) high[s] = values[s]!;
  },
};

/** The next run of present steps at or after `from`: [start, end), empty at the end. */
export function presentRun(present: Uint8Array, from: number): [number, number] {
  const start = present.indexOf(1, from);
  if (start < 0) return [present.length, present.length];
  const end = present.indexOf(0, start);
  return [start, end < 0 ? present.length : end];
}

export function emptyColumn(labels: Labels, stepCount: number): Column {
  return { labels, values: new Float64Array(stepCount), present: new Uint8Array(stepCount) };
}

/** An aggregation's input one series at a time: `column(i, scratch)` is series i's column, in `scratch` or its own. */
export interface Members {
  labels: Labels[];
  column: (index: number, scratch: Column) => Column;
}

/** Every member's column, each its own. */
export function wholeColumns(members: Members | undefined, stepCount: number): Columns | undefined {
  return members && { kind: 'vector', series: members.labels.map((labels, i) => members.column(i, emptyColumn(labels, stepCount))) };
}

/** The groups of some series (labels as `project` makes them), in the order of their first member, and the group of each series. */
export function groupsOf(members: readonly Labels[], project: (labels: Labels) => Labels, stepCount: number): { groups: Column[]; groupOf: Int32Array } {
  const index = new Map<string, number>();
  const groups: Column[] = [];
  const groupOf = new Int32Array(members.length);
  members.forEach((member, i) => {
    const labels = project(member);
    const key = signature(labels);
    let group = index.get(key);
    if (group === undefined) {
      group = groups.length;
      index.set(key, group);
      groups.push(emptyColumn(labels, stepCount));
    }
    groupOf[i] = group;
  });
  return { groups, groupOf };
}

/**
 * The first present member of each group at each step, noted member by member. The column path
 * answers only when at every step the groups' first present members come in the groups' order:
 * the step path lists a step's groups in that order, and what consumes them (a sum) adds them up
 * in it.
 */
export class FirstPresent {
  private readonly first: Int32Array;
  /** Steps of each group with no member present yet: a group with none left needs no more noting. */
  private readonly missing: Int32Array;

  constructor(
    private readonly groupCount: number,
    private readonly stepCount: number,
  ) {
    this.first = new Int32Array(groupCount * stepCount).fill(-1);
    this.missing = new Int32Array(groupCount).fill(stepCount);
  }

  /** A group's first present member at each step (-1: none yet), to be filled in member order. */
  rowOf(group: number): Int32Array {
    return this.first.subarray(group * this.stepCount, (group + 1) * this.stepCount);
  }

  note(group: number, member: number, present: Uint8Array): void {
    if (this.missing[group] === 0) return;
    const first = this.rowOf(group);
    let noted = 0;
    // Run by run of the member's present steps: its group's first member there, where it has none
    // yet (a group's first member fills whole runs).
    const none = this.missing[group] === this.stepCount;
    for (let [from, to] = presentRun(present, 0); from < to; [from, to] = presentRun(present, to)) {
      if (none) {
        first.fill(member, from, to);
        noted += to - from;
        continue;
      }
      for (let s = from; s < to; s += 1) {
        if (first[s] === -1) {
          first[s] = member;
          noted += 1;
        }
      }
    }
    this.missing[group] = this.missing[group]! - noted;
  }

  /** Marks the steps where a group has a member present. */
  presentIn(group: number, present: Uint8Array): void {
    if (this.missing[group] === 0) {
      present.fill(1);
      return;
    }
    const first = this.rowOf(group);
    for (let s = 0; s < this.stepCount; s += 1) present[s] = first[s] === -1 ? 0 : 1;
  }

  inOrder(): boolean {
    // Group by group (each one's row read in a line, not a step's groups a row apart).
    const last = new Int32Array(this.stepCount).fill(-1);
    for (let g = 0; g < this.groupCount; g += 1) {
      const first = this.rowOf(g);
      for (let s = 0; s < this.stepCount; s += 1) {
        const member = first[s]!;
        if (member === -1) continue;
        if (member < last[s]!) return false;
        last[s] = member;
      }
    }
    return true;
  }
}

/** The columns by their matching key; undefined when two share one. */
export function uniqueByKey(columns: readonly Column[], matching: VectorMatching): Map<string, Column> | undefined {
  const byKey = new Map<string, Column>();
  for (const column of columns) {
    const key = matchingKey(column.labels, matching);
    if (byKey.has(key)) return undefined;
    byKey.set(key, column);
  }
  return byKey;
}

/** The columns with a value at some step, as a range query's series; undefined when two share their labels (the step path merges them). */
export function seriesOfColumns(columns: readonly Column[], steps: Float64Array): RangeSeries[] | undefined {
  const signatures = new Set<string>();
  const out: RangeSeries[] = [];
  for (const column of columns) {
    const { present, values } = column;
    let count = 0;
    for (let s = 0; s < steps.length; s += 1) count += present[s]!;
    if (count === 0) continue;
    const series: RangeSeries = { labels: column.labels, times: new Float64Array(count), values: new Float64Array(count) };
    for (let s = 0, point = 0; s < steps.length; s += 1) {
      if (!present[s]) continue;
      series.times[point] = steps[s]!;
      series.values[point] = values[s]!;
      point += 1;
    }
    const key = signature(column.labels);
    if (signatures.has(key)) return undefined;
    signatures.add(key);
    out.push(series);
  }
  return out;
}
