// Offset cursors, as the REST layer builds them to page by `offset` through a GraphQL list. The
// lists themselves hand out keyset cursors (src/platform/lists/list-query.ts) and still accept
// these, so a REST page is the same rows it always was.
const PREFIX = 'offset:';

export function cursorForOffset(offset: number): string {
  return Buffer.from(`${PREFIX}${offset}`, 'utf8').toString('base64url');
}
