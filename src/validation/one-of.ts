// Closed sets of words (statuses, kinds, sort fields) checked the same way everywhere.

/** A type guard telling whether a value is one of `values`. */
export function oneOf<T extends string>(values: readonly T[]): (value: string) => value is T {
  return (value: string): value is T => (values as readonly string[]).includes(value);
}
