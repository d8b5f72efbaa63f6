// GraphQL hands an optional input field the client left out as null; services read only the fields
// that were given.

/** The fields of `input` that hold a value (null and undefined dropped). */
export function givenFields<T extends object>(input: T): { [K in keyof T]?: Exclude<T[K], null> } {
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== null && value !== undefined)) as { [K in keyof T]?: Exclude<T[K], null> };
}
