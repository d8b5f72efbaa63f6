// The graph's identity: `node(id)`/`nodes(ids)` refetch any record by its global id, and every
// entity type's `id` field makes one. Each type names the service call that finds one record by its
// natural key, and the API ids that admit a caller to it: a record reached here (or through a link)
// is no more open than the root fields that read it.
import { GatewayError } from '../errors.js';
import type { GatewayContext } from '../context.js';
import type { Resolvers, ResolversInterfaceTypes, ResolversParentTypes } from '../generated/graphql.js';
import { PUBLIC_API_ID } from '../auth/field-api-ids.js';
import { alertRulesFieldPermissions } from '../modules/alert-rules/index.js';
import { alertsFieldPermissions } from '../modules/alerts/index.js';
import { auditFieldPermissions } from '../modules/audit/index.js';
import { connectorsFieldPermissions } from '../modules/connectors/index.js';
import { datasetsFieldPermissions } from '../modules/datasets/index.js';
import { templatesFieldPermissions } from '../modules/templates/index.js';
import { decodeGlobalId, type NodeType } from './global-id.js';

/** Most ids one `nodes` call takes (each may cost a lookup). */
export const NODES_MAX = 100;

const fieldsApiIds = (...lists: (readonly string[] | undefined)[]): readonly string[] => [...new Set(lists.flatMap((list) => list ?? []))];

/** The API ids that admit a caller to a record of each type: those of the root fields that read it. */
export const NODE_READ_API_IDS: Record<NodeType, readonly string[]> = {
  Dataset: fieldsApiIds(datasetsFieldPermissions['Query.dataset'], datasetsFieldPermissions['Query.datasets']),
  Datasource: fieldsApiIds(datasetsFieldPermissions['Query.datasources']),
  QueryTemplate: fieldsApiIds(templatesFieldPermissions['Query.template'], templatesFieldPermissions['Query.templates']),
  Connector: fieldsApiIds(connectorsFieldPermissions['Query.connector'], connectorsFieldPermissions['Query.connectors']),
  Silence: fieldsApiIds(alertsFieldPermissions['Query.silence'], alertsFieldPermissions['Query.silences']),
  MetricAlias: fieldsApiIds(alertsFieldPermissions['Query.metricAlias'], alertsFieldPermissions['Query.metricAliases']),
  NotificationChannel: fieldsApiIds(alertsFieldPermissions['Query.notificationChannel'], alertsFieldPermissions['Query.notificationChannels']),
  AlertRule: fieldsApiIds(alertRulesFieldPermissions['Query.alertRule'], alertRulesFieldPermissions['Query.alertRules']),
  AlertNotification: fieldsApiIds(alertRulesFieldPermissions['Query.alertRule'], alertRulesFieldPermissions['Query.alertRules']),
  AuditRecord: fieldsApiIds(auditFieldPermissions['Query.auditRecords']),
};

/**
 * The read ids of every link (src/auth/guard.ts#guardLinks): each node type's, and a dataset's page of
 * connector instances, which shows what the connector registry holds about the dataset, so it is
 * admitted as the registry's own list is (`connectors`). The deprecated `Dataset.connectors` keeps
 * its access: its instances are part of the dataset record, and only their `connector` is the registry's.
 */
export const LINK_READ_API_IDS: Readonly<Record<string, readonly string[]>> = { ...NODE_READ_API_IDS, DatasetConnectorConnection: NODE_READ_API_IDS.Connector };

/** Whether the caller may read records of `type` (the API ids of that type's root fields): what search and lineage show. */
export function mayReadType(context: GatewayContext, type: NodeType): boolean {
  try {
    context.access.authorize(NODE_READ_API_IDS[type]);
    return true;
  } catch (error) {
    if (error instanceof GatewayError && (error.code === 'FORBIDDEN' || error.code === 'UNAUTHENTICATED')) return false;
    throw error;
  }
}

/** Who may call `node` and `nodes`: anyone; each record found is then checked by its type. */
export const nodeFieldPermissions = { 'Query.node': [PUBLIC_API_ID], 'Query.nodes': [PUBLIC_API_ID] } as const;

/** A service's "not found" answer as null (what `node` gives for an id whose record is gone). */
async function orNull<T>(lookup: Promise<T>): Promise<T | null> {
  try {
    return await lookup;
  } catch (error) {
    if (error instanceof GatewayError && error.kind === 'NOT_FOUND') return null;
    throw error;
  }
}

/** Any record a Node type is made from (the mappers of codegen.ts). */
type NodeRecord = ResolversInterfaceTypes<ResolversParentTypes>['Node'];

type Finder = (key: string[], context: GatewayContext) => Promise<NodeRecord | null | undefined>;

const FINDERS: Record<NodeType, Finder> = {
  Dataset: async ([datasetId, stage], { loaders }) => (stage === 'live' || stage === 'draft' ? (await loaders.datasetVersions.load(datasetId!))[stage] : undefined),
  Datasource: ([datasetId], { services }) => services.datasets.datasource(datasetId!),
  QueryTemplate: ([templateId], { loaders }) => loaders.templateById.load(templateId!),
  Connector: ([id], { services }) => orNull(services.connectors.get(id!, null)),
  Silence: ([id], { services }) => orNull(services.alerts.getSilence(id!)),
  MetricAlias: ([id], { services }) => orNull(services.alerts.getMetricAlias(id!)),
  NotificationChannel: ([id], { services }) => orNull(services.alerts.getChannel(id!)),
  AlertRule: ([id], { services }) => orNull(services.alertRules.getRule(id!)),
  AlertNotification: ([id], { services }) => services.alertRules.notification(id!),
  AuditRecord: ([id], { services }) => services.audit.find(id!),
};

// Which type a record found by `node` is: records carry no type of their own (a record is the
// service's, shared with every other field that returns it).
const typeOfRecord = new WeakMap<NodeRecord, NodeType>();

async function findNode(id: string, context: GatewayContext): Promise<NodeRecord | null> {
  const { type, key } = decodeGlobalId(id);
  context.access.authorize(NODE_READ_API_IDS[type]);
  const record = await FINDERS[type](key, context);
  if (!record) return null;
  typeOfRecord.set(record, type);
  return record;
}

export const nodeResolvers: Resolvers = {
  Query: {
    node: (_, { id }, context) => findNode(id, context),
    nodes: (_, { ids }, context) => {
      if (ids.length > NODES_MAX) throw new GatewayError('NODES_LIMIT_EXCEEDED', `nodes takes at most ${NODES_MAX} ids; ${ids.length} were given`);
      // Every id is checked before any record is read, so one bad id fails the call whole.
      for (const id of ids) decodeGlobalId(id);
      return Promise.all(ids.map((id) => findNode(id, context)));
    },
  },
  Node: {
    __resolveType: (record) => typeOfRecord.get(record) ?? null,
  },
};
