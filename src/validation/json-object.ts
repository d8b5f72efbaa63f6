// The one test for "a JSON object" (not null, not an array) that every module shares.

/** True for a non-null object that is not an array: a JSON object as parsed. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
