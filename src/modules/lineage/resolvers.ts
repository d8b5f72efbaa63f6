// GraphQL resolvers for `lineage` on datasets, templates and alert rules: the record, the way and the
// depth in, the request's lineage loader (one statement per level for the whole page), each record
// reached loaded through the request's loaders only when its `entity` is selected.
import type { GatewayContext } from '../../context.js';
import type { LineageDirection as GraphQLDirection, Resolvers } from '../../generated/graphql.js';
import { mayReadType } from '../../graphql/nodes.js';
import { checkDepth } from './service.js';
import type { LineageNodeType, LineageRef } from './types.js';

const NODE_TYPES: readonly LineageNodeType[] = ['Dataset', 'QueryTemplate', 'AlertRule', 'Connector'];

function lineageOf(root: LineageRef, args: { direction?: GraphQLDirection | null; depth?: number | null }, context: GatewayContext) {
  const depth = args.depth ?? 1;
  checkDepth(depth);
  const readable = new Set(NODE_TYPES.filter((type) => mayReadType(context, type)));
  return context.loaders.lineage.load({ root, direction: args.direction ?? 'BOTH', depth, readable });
}

async function entityOf(ref: LineageRef, { loaders }: GatewayContext) {
  switch (ref.type) {
    case 'Dataset': {
      const versions = await loaders.datasetVersions.load(ref.key);
      return versions.live ?? versions.draft ?? null;
    }
    case 'QueryTemplate':
      return (await loaders.templateById.load(ref.key)) ?? null;
    case 'AlertRule':
      return (await loaders.alertRuleById.load(ref.key)) ?? null;
    case 'Connector':
      return (await loaders.connectorByName.load(ref.key)) ?? null;
  }
}

export const lineageResolvers: Resolvers = {
  Dataset: { lineage: (dataset, args, context) => lineageOf({ type: 'Dataset', key: dataset.datasetId }, args, context) },
  QueryTemplate: { lineage: (template, args, context) => lineageOf({ type: 'QueryTemplate', key: template.templateId }, args, context) },
  AlertRule: { lineage: (rule, args, context) => lineageOf({ type: 'AlertRule', key: rule.id }, args, context) },
  LineageNode: { entity: (node, _, context) => entityOf(node, context) },
  LineageEntity: {
    // A record carries no type of its own; its natural key's field tells which it is.
    __resolveType: (record) => ('datasetId' in record ? 'Dataset' : 'templateId' in record ? 'QueryTemplate' : 'connectorId' in record ? 'Connector' : 'AlertRule'),
  },
};
