// What a version changed: the paths whose values differ between it and the version before, each
// with its value before and after. Objects are walked key by key (a path is the field, then the keys
// inside it, dot-separated); arrays and other values are compared whole. Who changed it and when are
// the entry's own fields, not changes.
import { sameJson } from '../../platform/json/same-json.js';
import type { ChangedPath } from './types.js';

/** Fields that every write changes or that the entry shows on its own. */
const NOT_CHANGES = new Set(['updatedDate', 'updatedBy', 'createdDate', 'createdBy', 'versionKey']);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function walk(path: string, before: unknown, after: unknown, into: ChangedPath[]): void {
  if (isObject(before) && isObject(after)) {
    for (const key of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()) {
      walk(`${path}.${key}`, before[key], after[key], into);
    }
    return;
  }
  if (sameJson(before, after)) return;
  into.push({ path, ...(before !== undefined ? { before } : {}), ...(after !== undefined ? { after } : {}) });
}

/** The changes from `before` (null: nothing before) to `after` (null: the record was deleted, so none). */
export function changedPaths(before: Record<string, unknown> | null, after: Record<string, unknown> | null): ChangedPath[] {
  if (after === null) return [];
  const changes: ChangedPath[] = [];
  for (const field of [...new Set([...Object.keys(before ?? {}), ...Object.keys(after)])].sort()) {
    if (NOT_CHANGES.has(field)) continue;
    walk(field, before?.[field], after[field], changes);
  }
  return changes;
}
