// Opaque cursors for connection pagination. A cursor is the item's position in the sorted list;
// the base64 wrapping keeps clients from building them by hand.
import { GatewayError, type ErrorCode } from '../errors.js';
import type { Page } from '../validation/page-window.js';

const PREFIX = 'offset:';

export function cursorForOffset(offset: number): string {
  return Buffer.from(`${PREFIX}${offset}`, 'utf8').toString('base64url');
}

/** The offset at which the page after `cursor` starts (0 without a cursor). */
export function offsetAfter(cursor: string | null | undefined, invalidCode: ErrorCode): number {
  if (cursor === null || cursor === undefined) return 0;
  const decoded = Buffer.from(cursor, 'base64url').toString('utf8');
  const offset = decoded.startsWith(PREFIX) ? Number(decoded.slice(PREFIX.length)) : Number.NaN;
  if (!Number.isSafeInteger(offset) || offset < 0) {
    throw new GatewayError(invalidCode, `after: ${JSON.stringify(cursor.slice(0, 60))} is not a cursor returned by this list`);
  }
  return offset + 1;
}

export interface PageLike<T> {
  items: T[];
  offset: number;
  hasNextPage: boolean;
}

/** Edges, nodes and pageInfo of a connection from a page of items. */
export function connectionFields<T>(page: PageLike<T>) {
  const edges = page.items.map((node, index) => ({ cursor: cursorForOffset(page.offset + index), node }));
  return {
    edges,
    nodes: page.items,
    pageInfo: {
      hasNextPage: page.hasNextPage,
      hasPreviousPage: page.offset > 0,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
  };
}

/** The resolvers of a connection type (edges, nodes, pageInfo, and totalCount only when asked for) over a page. */
export function connectionResolvers<T>() {
  return {
    edges: (page: Page<T>) => connectionFields(page).edges,
    nodes: (page: Page<T>) => page.items,
    pageInfo: (page: Page<T>) => connectionFields(page).pageInfo,
    totalCount: (page: Page<T>) => page.countAll(),
  };
}
