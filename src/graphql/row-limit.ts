// A query result cut at its row bound (TEMPLATE_QUERY_MAX_ROWS) is never cut silently: the resolver
// that ran it notes the cut on the request, which the REST layer answers as `x-result-truncated`.
import type { GatewayContext } from '../context.js';
import { rowLimitOf } from '../platform/query-engine/query-engine.js';

/** Notes on the request that `rows` were cut at their bound, if they were, and passes them on. */
export function noteRowLimit<T>(context: Pick<GatewayContext, 'resultRowLimit'>, rows: T): T {
  const limit = rowLimitOf(rows);
  if (limit !== undefined) context.resultRowLimit = limit;
  return rows;
}
