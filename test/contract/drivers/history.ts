// The transports of the history scenarios (a field of datasets, templates, rules and channels; no REST endpoint).
import type { TestGateway } from '../../support/gateway.js';
import type { HistoryDriver, HistoryOf } from '../history.js';
import { graphqlQueryCall, sseQueryCall, wsQueryCall, type GraphQueryCall } from './graph-query.js';

const HISTORY_SELECTION = `history(first: $first, after: $after) {
    totalCount
    pageInfo { hasNextPage hasPreviousPage endCursor }
    edges { cursor node { versionKey operation stage actor at changes { path before after } } }
  }`;
const VARIABLES = '$id: ID!, $first: Int, $after: String';

function driverOn(call: GraphQueryCall): HistoryDriver {
  return {
    history: async (of: HistoryOf, id, page, bearer) => {
      const outcome = await call(of, VARIABLES, `${of}(id: $id) { ${HISTORY_SELECTION} }`, { id, ...page }, bearer);
      return outcome.ok ? { ok: true, value: outcome.value?.history ?? null } : outcome;
    },
  };
}

export const graphqlHistoryDriver = (gw: TestGateway): HistoryDriver => driverOn(graphqlQueryCall(gw));
export const wsHistoryDriver = (gw: TestGateway): HistoryDriver => driverOn(wsQueryCall(gw));
export const sseHistoryDriver = (gw: TestGateway): HistoryDriver => driverOn(sseQueryCall(gw));
