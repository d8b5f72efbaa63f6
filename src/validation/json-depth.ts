// Nesting depth of a JSON value, stopping as soon as it passes the limit (so a hostile document
// costs no more than `limit` levels of work). Deep documents are refused before they reach a
// validator or the database, both of which recurse.

/** The path of the first value nested deeper than `limit` levels, or undefined when none is. */
export function pathDeeperThan(value: unknown, limit: number, path = ''): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  if (limit <= 0) return path || '/';
  for (const [key, inner] of Object.entries(value)) {
    const found = pathDeeperThan(inner, limit - 1, `${path}/${key}`);
    if (found !== undefined) return found;
  }
  return undefined;
}
