// The one codec of list cursors, both kinds: keyset cursors, which the lists hand out (the values of
// the row's sort keys, with the list's type and order they belong to), and offset cursors, which the
// REST layer builds to page by `offset` through a GraphQL list, so a REST page is the same rows it
// always was. Both are base64url text, opaque to clients.
const OFFSET_PREFIX = 'offset:';
const KEYSET_VERSION = 'k1';

/** The cursor of the row at `offset` (0-based): a page after it starts at the next row. */
export function cursorForOffset(offset: number): string {
  return Buffer.from(`${OFFSET_PREFIX}${offset}`, 'utf8').toString('base64url');
}

/** The cursor of a row of a list of `type` sorted by `order` (its signature), by its sort keys' `values`. */
export function keysetCursor(type: string, order: string, values: readonly unknown[]): string {
  return Buffer.from(JSON.stringify([KEYSET_VERSION, type, order, values]), 'utf8').toString('base64url');
}

export type DecodedCursorText = { offset: number } | { type: unknown; order: unknown; values: unknown } | 'malformed';

/** What a cursor's text says, before the list checks that it is one of its own. */
export function decodeCursorText(cursor: string): DecodedCursorText {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  if (text.startsWith(OFFSET_PREFIX)) {
    const offset = Number(text.slice(OFFSET_PREFIX.length));
    return Number.isSafeInteger(offset) && offset >= 0 ? { offset } : 'malformed';
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return 'malformed';
  }
  if (!Array.isArray(parsed) || parsed.length !== 4 || parsed[0] !== KEYSET_VERSION) return 'malformed';
  return { type: parsed[1], order: parsed[2], values: parsed[3] };
}
