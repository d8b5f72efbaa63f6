// The transports of the lineage scenarios (a field of datasets, templates and rules; no REST endpoint).
import type { TestGateway } from '../../support/gateway.js';
import type { ConnectorPageSeen, HeldSeen, LineageDriver, LineageOf } from '../lineage.js';
import { graphqlQueryCall, sseQueryCall, wsQueryCall, type GraphQueryCall } from './graph-query.js';

const LINEAGE_SELECTION = `lineage(direction: $direction, depth: $depth) {
    direction depth
    nodes { type key degree direction entity { __typename ... on Dataset { name } ... on QueryTemplate { name } ... on AlertRule { name } ... on Connector { name } } }
    edges { kind degree direction from { type key } to { type key } }
  }`;
const VARIABLES = '$id: ID!, $direction: LineageDirection, $depth: Int';

/** The page of what each record holds the ids of, and the deprecated whole list it replaces. */
const HELD_SELECTION: Record<LineageOf, string> = {
  dataset: 'page: denormSourcePage(first: $first, where: $where) { totalCount nodes { key: datasetId stage } } whole: denormSources { key: datasetId }',
  template: 'page: datasetPage(first: $first, where: $where) { totalCount nodes { key: datasetId stage } } whole: datasets { key: datasetId }',
  alertRule: 'page: channelPage(first: $first, where: $where) { totalCount nodes { key: channelId name } } whole: channels { key: channelId }',
};
const WHERE_TYPE: Record<LineageOf, string> = { dataset: 'DatasetWhere', template: 'DatasetWhere', alertRule: 'NotificationChannelWhere' };

function driverOn(call: GraphQueryCall): LineageDriver {
  return {
    lineage: async (of: LineageOf, id, variables, bearer) => {
      const outcome = await call(of, VARIABLES, `${of}(id: $id) { ${LINEAGE_SELECTION} }`, { id, ...variables }, bearer);
      return outcome.ok ? { ok: true, value: outcome.value?.lineage ?? null } : outcome;
    },
    held: async (of: LineageOf, id, { pageOnly, ...variables }, bearer) => {
      const selection = pageOnly ? HELD_SELECTION[of].replace(/ whole: .*$/, '') : HELD_SELECTION[of];
      const outcome = await call(of, `$id: ID!, $first: Int, $where: ${WHERE_TYPE[of]}`, `${of}(id: $id) { ${selection} }`, { id, ...variables }, bearer);
      if (!outcome.ok) return outcome;
      const seen = outcome.value as { page: HeldSeen['page']; whole?: { key: string }[] } | null;
      return { ok: true, value: seen && { page: seen.page, whole: (seen.whole ?? []).map((item) => item.key) } };
    },
    connectorPage: async (id, { pageOnly, ...variables }, bearer) => {
      const page = `page: connectorPage(first: $first, last: $last, after: $after, before: $before, where: $where, orderBy: $orderBy) {
        totalCount nodes { instanceId connectorId version } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } }`;
      const selection = pageOnly ? page : `${page} whole: connectors { instanceId }`;
      const declarations = '$id: ID!, $first: Int, $last: Int, $after: String, $before: String, $where: DatasetConnectorWhere, $orderBy: [DatasetConnectorOrder!]';
      const outcome = await call('dataset', declarations, `dataset(id: $id) { ${selection} }`, { id, ...variables }, bearer);
      if (!outcome.ok) return outcome;
      const seen = outcome.value as { page: ConnectorPageSeen['page']; whole?: { instanceId: string }[] } | null;
      return { ok: true, value: seen && { page: seen.page, whole: (seen.whole ?? []).map((item) => item.instanceId) } };
    },
    connectorList: async (id, bearer) => {
      const outcome = await call('dataset', '$id: ID!', 'dataset(id: $id) { connectors { instanceId } }', { id }, bearer);
      if (!outcome.ok) return outcome;
      const seen = outcome.value as { connectors: { instanceId: string }[] } | null;
      return { ok: true, value: seen && seen.connectors.map((item) => item.instanceId) };
    },
  };
}

export const graphqlLineageDriver = (gw: TestGateway): LineageDriver => driverOn(graphqlQueryCall(gw));
export const wsLineageDriver = (gw: TestGateway): LineageDriver => driverOn(wsQueryCall(gw));
export const sseLineageDriver = (gw: TestGateway): LineageDriver => driverOn(sseQueryCall(gw));
