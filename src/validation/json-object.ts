// The one test for "a JSON object" (not null, not an array) that every module shares.

/** True for a non-null object that is not an array: a JSON object as parsed. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * A value as text for messages, keys and SQL parameters: scalars as String() writes them, objects
 * and arrays as JSON (never "[object Object]").
 */
export function textOf(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
    case 'boolean':
    case 'bigint':
    case 'undefined':
      return String(value);
    case 'symbol':
      return value.toString();
    case 'function':
      return `function ${value.name}`;
    default:
      return value === null ? 'null' : (JSON.stringify(value) ?? 'null');
  }
}
