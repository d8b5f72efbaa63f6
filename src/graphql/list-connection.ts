// The resolvers every connection of the list contract shares (edges, nodes, pageInfo, totalCount,
// groupBy, aggregate) over a page read by src/platform/lists/list-query.ts.
import type { GroupRequest } from '../platform/lists/aggregate.js';
import type { ListPage } from '../platform/lists/list-query.js';

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
    groupBy: (page: ListPage<T>, args: GroupRequest) => page.groupBy(args),
    aggregate: (page: ListPage<T>) => page.aggregate(),
  };
}

/** The resolvers of a connection that offers no groupBy or aggregate (a record's history, a dataset's connector instances: each bounded by its record). */
export function pageConnectionResolvers<T>() {
  const { groupBy: _noGroups, aggregate: _noFigures, ...page } = listConnectionResolvers<T>();
  return page;
}
