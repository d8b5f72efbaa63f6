// Label sets: their signatures, projections (by, without, on, ignoring) and matchers.
import { compileLabelPattern, type LabelPattern } from './label-pattern.js';
import type { Labels } from './model.js';
import type { LabelMatcher, VectorMatching } from './parser.js';

export const NAME = '__name__';

// Label sets are never changed once made, and a series keeps its label object from step to step,
// so what is derived from one (its signature, its projections) is computed once per object.
const signatures = new WeakMap<Labels, string>();

export function signature(labels: Labels): string {
  let found = signatures.get(labels);
  if (found === undefined) {
    found = Object.keys(labels)
      .sort()
      .map((key) => `${key}\u0000${labels[key]}`)
      .join('\u0001');
    signatures.set(labels, found);
  }
  return found;
}

type Projections = WeakMap<readonly string[], WeakMap<Labels, Labels>>;
const kept: Projections = new WeakMap();
const dropped: Projections = new WeakMap();
const droppedWithName: Projections = new WeakMap();
const NO_LABELS: readonly string[] = [];

function memoised(cache: Projections, labels: Labels, list: readonly string[], make: () => Labels): Labels {
  let byLabels = cache.get(list);
  if (!byLabels) cache.set(list, (byLabels = new WeakMap()));
  let found = byLabels.get(labels);
  if (!found) byLabels.set(labels, (found = make()));
  return found;
}

/** The order of a range query's series: by their labels. */
export function compareLabels(a: Labels, b: Labels): number {
  const left = signature(a);
  const right = signature(b);
  return left < right ? -1 : left > right ? 1 : 0;
}

export function withoutName(labels: Labels): Labels {
  if (!(NAME in labels)) return labels;
  return dropLabels(labels, NO_LABELS, true);
}

export function keepLabels(labels: Labels, keep: readonly string[]): Labels {
  return memoised(kept, labels, keep, () => {
    const out: Record<string, string> = {};
    for (const key of keep) if (labels[key] !== undefined && labels[key] !== '') out[key] = labels[key];
    return out;
  });
}

/** The labels without those listed (and without the metric name, when `name` is set). */
export function dropLabels(labels: Labels, drop: readonly string[], name = false): Labels {
  return memoised(name ? droppedWithName : dropped, labels, drop, () => {
    const out: Record<string, string> = {};
    for (const [key, value] of Object.entries(labels)) if (!drop.includes(key) && !(name && key === NAME)) out[key] = value;
    return out;
  });
}

export function matchingKey(labels: Labels, matching: VectorMatching): string {
  return signature(matching.on ? keepLabels(labels, matching.labels) : dropLabels(labels, matching.labels, true));
}

/** Whether a series' labels satisfy every matcher (a missing label reads as ""). */
export function matchesAll(labels: Labels, matchers: readonly LabelMatcher[], patterns = new Map<string, LabelPattern>()): boolean {
  for (const matcher of matchers) {
    const value = labels[matcher.label] ?? '';
    switch (matcher.op) {
      case '=':
        if (value !== matcher.value) return false;
        break;
      case '!=':
        if (value === matcher.value) return false;
        break;
      default: {
        let pattern = patterns.get(matcher.value);
        if (!pattern) patterns.set(matcher.value, (pattern = compileLabelPattern(matcher.value)));
        if (pattern.matches(value) !== (matcher.op === '=~')) return false;
      }
    }
  }
  return true;
}
