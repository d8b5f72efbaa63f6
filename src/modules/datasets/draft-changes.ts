// How an update changes a draft (the original's PATCH /v2/datasets/update): list sections are
// change lists of {value, action: upsert|remove} keyed by each item's identity, and fields removed
// from dataSchema take along what names them (transformations, denorm fields, keys).
import { isObject } from '../../validation/json-object.js';
import type { JsonObject } from './types.js';

export const CHANGE_ACTIONS = ['upsert', 'remove'] as const;
export interface Change {
  value: unknown;
  action: (typeof CHANGE_ACTIONS)[number];
}

/** The identity of an item of each list section (what an upsert replaces and a remove names). */
export const ITEM_KEYS = {
  transformationsConfig: 'field_key',
  connectorsConfig: 'id',
  denorm_fields: 'denorm_out_field',
} as const;

function keyOf(item: unknown, key: string | undefined): unknown {
  return key === undefined ? item : isObject(item) ? item[key] : undefined;
}

/** `items` with each change applied in order: an upsert replaces the item with its key or appends. */
export function applyChanges(items: readonly unknown[], changes: readonly Change[], key?: string): unknown[] {
  let result = [...items];
  for (const change of changes) {
    const identity = keyOf(change.value, key);
    const at = result.findIndex((item) => keyOf(item, key) === identity);
    if (change.action === 'remove') result = result.filter((item) => keyOf(item, key) !== identity);
    else if (at >= 0) result[at] = change.value;
    else result.push(change.value);
  }
  return result;
}

/** Dotted paths of every property a JSON Schema declares, nested objects included. */
export function schemaFieldPaths(schema: unknown, prefix = ''): string[] {
  if (!isObject(schema) || !isObject(schema.properties)) return [];
  return Object.entries(schema.properties).flatMap(([name, inner]) => {
    const path = prefix ? `${prefix}.${name}` : name;
    return [path, ...schemaFieldPaths(inner, path)];
  });
}

/** The paths `before` declares that `after` no longer does. */
export function removedFieldPaths(before: unknown, after: unknown): Set<string> {
  const kept = new Set(schemaFieldPaths(after));
  return new Set(schemaFieldPaths(before).filter((path) => !kept.has(path)));
}

/**
 * The schema with each removed field also gone from its parent's `required` list (a wizard that
 * drops a field from `properties` means the field, not a rule that events still carry it).
 */
export function withoutRemovedRequired(schema: unknown, removed: ReadonlySet<string>, prefix = ''): unknown {
  if (!isObject(schema) || !isObject(schema.properties)) return schema;
  const path = (name: string) => (prefix ? `${prefix}.${name}` : name);
  return {
    ...schema,
    properties: Object.fromEntries(Object.entries(schema.properties).map(([name, inner]) => [name, withoutRemovedRequired(inner, removed, path(name))])),
    ...(Array.isArray(schema.required) ? { required: schema.required.filter((name) => typeof name !== 'string' || !removed.has(path(name))) } : {}),
  };
}

/** A path or one of its ancestors was removed. */
function isRemoved(path: unknown, removed: ReadonlySet<string>): boolean {
  if (typeof path !== 'string' || path === '') return false;
  const parts = path.split('.');
  return parts.some((_, index) => removed.has(parts.slice(0, index + 1).join('.')));
}

/**
 * What removing schema fields takes with it: transformations of those fields and denorm fields
 * keyed on them are dropped, keys (data, partition, timestamp) naming them are blanked.
 */
export function cascadeRemovedFields(definition: { transformationsConfig: unknown[]; denormConfig: JsonObject; datasetConfig: JsonObject }, removed: ReadonlySet<string>): void {
  if (removed.size === 0) return;
  definition.transformationsConfig = definition.transformationsConfig.filter((item) => !isObject(item) || !isRemoved(item.field_key, removed));
  const denormFields = Array.isArray(definition.denormConfig.denorm_fields) ? definition.denormConfig.denorm_fields : [];
  definition.denormConfig = { ...definition.denormConfig, denorm_fields: denormFields.filter((item) => !isObject(item) || !isRemoved(item.denorm_key, removed)) };
  const keys = definition.datasetConfig.keys_config;
  if (isObject(keys)) {
    definition.datasetConfig = {
      ...definition.datasetConfig,
      keys_config: Object.fromEntries(Object.entries(keys).map(([name, value]) => [name, isRemoved(value, removed) ? '' : value])),
    };
  }
}
