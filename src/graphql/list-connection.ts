// The resolvers every connection of the list contract shares (edges, nodes, pageInfo, totalCount,
// groupBy) over a page read by src/platform/lists/list-query.ts.
import type { ListPage, ListWhere } from '../platform/lists/list-query.js';

export function listConnectionResolvers<T>() {
  return {
    edges: (page: ListPage<T>) => page.items.map((node, index) => ({ cursor: page.cursors[index]!, node })),
    nodes: (page: ListPage<T>) => page.items,
    pageInfo: (page: ListPage<T>) => ({
      hasNextPage: page.hasNextPage,
      hasPreviousPage: page.hasPreviousPage,
      startCursor: page.cursors[0] ?? null,
      endCursor: page.cursors.at(-1) ?? null,
    }),
    totalCount: (page: ListPage<T>) => page.countAll(),
    groupBy: (page: ListPage<T>, args: { field: string }) => page.groupBy(args.field),
  };
}

/** A list's `where` together with the filter of its older `filter` argument (both must match). */
export function withLegacyFilter(where: ListWhere | null | undefined, legacy: ListWhere | undefined): ListWhere | undefined {
  const parts = [legacy, where ?? undefined].filter((part): part is ListWhere => part !== undefined && Object.keys(part).length > 0);
  return parts.length === 0 ? undefined : parts.length === 1 ? parts[0] : { _and: parts };
}

/** `{ field: { eq: value } }` when `value` is given (an older filter's field), else nothing. */
export function legacyEq(field: string, value: unknown): ListWhere {
  return value === null || value === undefined ? {} : { [field]: { eq: value } };
}

/** `{ field: { in: values } }` when `values` is given, else nothing. */
export function legacyIn(field: string, values: readonly unknown[] | null | undefined): ListWhere {
  return values === null || values === undefined ? {} : { [field]: { in: values } };
}
