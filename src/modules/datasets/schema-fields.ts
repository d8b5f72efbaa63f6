// A dataset's data schema flattened to one entry per field path, for dashboards and code generators
// that should not walk JSON Schema themselves. Array items are `path[*]`; keys that dotted paths
// cannot spell are written `["key"]`, as schema inference writes them.
import { isObject } from '../../validation/json-object.js';

export interface SchemaField {
  path: string;
  name: string;
  types: string[];
  format: string | null;
  required: boolean;
  description: string | null;
  arrivalFormat: string | null;
  dataType: string | null;
  piiSuggestion: string | null;
}

/** Deepest nesting walked; definitions are bounded far below this when stored. */
const MAX_DEPTH = 32;
const PLAIN_KEY = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

function pathOf(parent: string, key: string): string {
  const part = PLAIN_KEY.test(key) ? key : `[${JSON.stringify(key)}]`;
  return parent === '' ? part : part.startsWith('[') ? `${parent}${part}` : `${parent}.${part}`;
}

/** The message of the property's personal-data suggestion (schema inference marks it TRANSFORMATION). */
function piiSuggestionOf(property: Record<string, unknown>): string | null {
  const suggestions = Array.isArray(property.suggestions) ? property.suggestions : [];
  const pii = suggestions.find((entry): entry is Record<string, unknown> => isObject(entry) && entry.resolutionType === 'TRANSFORMATION');
  return pii ? text(pii.message) : null;
}

function walk(schema: Record<string, unknown>, parent: string, depth: number, into: SchemaField[]): void {
  if (depth > MAX_DEPTH) return;
  if (isObject(schema.properties)) {
    const required = new Set(Array.isArray(schema.required) ? schema.required.filter((key): key is string => typeof key === 'string') : []);
    for (const [key, property] of Object.entries(schema.properties)) {
      if (!isObject(property)) continue;
      const path = pathOf(parent, key);
      into.push(field(path, key, property, required.has(key)));
      walk(property, path, depth + 1, into);
    }
  }
  if (isObject(schema.items)) {
    const path = `${parent}[*]`;
    // Items of scalars are the array's own values, described by the array's entry; objects give fields.
    if (isObject(schema.items.properties) || isObject(schema.items.items)) walk(schema.items, path, depth + 1, into);
  }
}

function field(path: string, name: string, property: Record<string, unknown>, required: boolean): SchemaField {
  const type = property.type;
  return {
    path,
    name,
    types: typeof type === 'string' ? [type] : Array.isArray(type) ? type.filter((entry): entry is string => typeof entry === 'string') : [],
    format: text(property.format),
    required,
    description: text(property.description),
    arrivalFormat: text(property.arrival_format),
    dataType: text(property.data_type),
    piiSuggestion: piiSuggestionOf(property),
  };
}

/** Every field of a data schema, in document order (a parent before its children). */
export function schemaFields(dataSchema: Record<string, unknown>): SchemaField[] {
  const fields: SchemaField[] = [];
  walk(dataSchema, '', 0, fields);
  return fields;
}
