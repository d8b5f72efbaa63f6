// The transports of the lineage scenarios (a field of datasets, templates and rules; no REST endpoint).
import type { TestGateway } from '../../support/gateway.js';
import type { LineageDriver, LineageOf } from '../lineage.js';
import { graphqlQueryCall, sseQueryCall, wsQueryCall, type GraphQueryCall } from './graph-query.js';

const LINEAGE_SELECTION = `lineage(direction: $direction, depth: $depth) {
    direction depth
    nodes { type key degree direction entity { __typename ... on Dataset { name } ... on QueryTemplate { name } ... on AlertRule { name } ... on Connector { name } } }
    edges { kind degree direction from { type key } to { type key } }
  }`;
const VARIABLES = '$id: ID!, $direction: LineageDirection, $depth: Int';

function driverOn(call: GraphQueryCall): LineageDriver {
  return {
    lineage: async (of: LineageOf, id, variables, bearer) => {
      const outcome = await call(of, VARIABLES, `${of}(id: $id) { ${LINEAGE_SELECTION} }`, { id, ...variables }, bearer);
      return outcome.ok ? { ok: true, value: outcome.value?.lineage ?? null } : outcome;
    },
  };
}

export const graphqlLineageDriver = (gw: TestGateway): LineageDriver => driverOn(graphqlQueryCall(gw));
export const wsLineageDriver = (gw: TestGateway): LineageDriver => driverOn(wsQueryCall(gw));
export const sseLineageDriver = (gw: TestGateway): LineageDriver => driverOn(sseQueryCall(gw));
