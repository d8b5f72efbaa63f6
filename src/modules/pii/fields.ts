// Every field of every record, by dotted path, with the distinct values it holds. Arrays are
// transparent: `contacts[*].email` is the field `contacts.email`, and the items of an array of
// strings are that field's values. Booleans are no one's personal data and are left out.
import { MAX_VALUE_LENGTH } from './detectors.js';
import type { FieldSample } from './types.js';
import { textOf } from '../../validation/json-object.js';

export interface CollectLimits {
  /** Distinct values kept per field; more records add no evidence worth the work. */
  maxValuesPerField: number;
  /** Distinct fields; past it the caller is told to send fewer or flatter records. */
  maxFields: number;
}

export class TooManyFields extends Error {}

export function collectFields(records: readonly unknown[], limits: CollectLimits): FieldSample[] {
  const fields = new Map<string, Set<string>>();

  const add = (path: string, text: string) => {
    let values = fields.get(path);
    if (!values) {
      if (fields.size >= limits.maxFields) throw new TooManyFields(`the records hold more than ${limits.maxFields} distinct fields`);
      values = new Set();
      fields.set(path, values);
    }
    // Values too long for any detector are still counted, so they weigh against the field.
    if (values.size < limits.maxValuesPerField) values.add(text.length > MAX_VALUE_LENGTH ? text.slice(0, MAX_VALUE_LENGTH + 1) : text);
  };

  const walk = (value: unknown, path: string): void => {
    if (value === null || value === undefined || typeof value === 'boolean') return;
    if (Array.isArray(value)) {
      for (const item of value) walk(item, path);
      return;
    }
    if (typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) walk(inner, path ? `${path}.${key}` : key);
      return;
    }
    if (!path) return;
    const text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : textOf(value).trim();
    if (text !== '') add(path, text);
  };

  for (const record of records) walk(record, '');
  return [...fields].map(([path, values]) => ({ path, values: [...values] }));
}
