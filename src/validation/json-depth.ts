// Nesting depth of a JSON value, stopping as soon as it passes the limit (so a hostile document
// costs no more than `limit` levels of work). Deep documents are refused before they reach a
// validator or the database, both of which recurse. Every ingested event is walked, so the walk
// allocates nothing until it finds something: the path is put together on the way back out.

/** The path of the first value nested deeper than `limit` levels, or undefined when none is. */
export function pathDeeperThan(value: unknown, limit: number): string | undefined {
  const reversed = segmentsDeeperThan(value, limit);
  if (reversed === undefined) return undefined;
  return reversed.length === 0 ? '/' : reversed.reduceRight((path, segment) => `${path}/${segment}`, '');
}

/** The segments of that path, innermost first; [] for the value itself. */
function segmentsDeeperThan(value: unknown, limit: number): string[] | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  if (limit <= 0) return [];
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const found = segmentsDeeperThan(value[index], limit - 1);
      if (found !== undefined) {
        found.push(String(index));
        return found;
      }
    }
    return undefined;
  }
  const members = value as Record<string, unknown>;
  for (const key of Object.keys(members)) {
    const found = segmentsDeeperThan(members[key], limit - 1);
    if (found !== undefined) {
      found.push(key);
      return found;
    }
  }
  return undefined;
}
