// The one executable schema: SDL from graphql/*.graphql plus every module's resolvers. Both the
// GraphQL endpoint and the REST layer execute against it.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { DateTimeResolver, JSONResolver } from 'graphql-scalars';
import { mergeTypeDefs } from '@graphql-tools/merge';
import { buildASTSchema, type GraphQLSchema } from 'graphql';
import type { Resolvers } from '../generated/graphql.js';
import { alertResolvers, alertsFieldPermissions } from '../modules/alerts/index.js';
import { alertRuleFieldReads, alertRuleResolvers, alertRulesFieldPermissions, alertRulesPublishedReads } from '../modules/alert-rules/index.js';
import { GRAPHQL_ENUM_VALUES } from './enum-values.js';
import { auditResolvers, auditFieldPermissions } from '../modules/audit/index.js';
import { connectorFieldReads, connectorResolvers, connectorsFieldPermissions, connectorsPublishedReads } from '../modules/connectors/index.js';
import { dataAccessResolvers, dataAccessFieldPermissions } from '../modules/data-access/index.js';
import { datasetFieldReads, datasetResolvers, datasetsFieldPermissions, datasetsPublishedReads } from '../modules/datasets/index.js';
import { fileResolvers, filesFieldPermissions } from '../modules/files/index.js';
import { ingestionResolvers, ingestionFieldPermissions } from '../modules/ingestion/index.js';
import { metricsResolvers, metricsFieldPermissions } from '../modules/metrics/index.js';
import { piiResolvers, piiFieldPermissions } from '../modules/pii/index.js';
import { schemaInferenceResolvers, schemaInferenceFieldPermissions } from '../modules/schema-inference/index.js';
import { jobResolvers, jobsFieldPermissions } from '../modules/jobs/index.js';
import { seriesResolvers, seriesFieldPermissions } from '../modules/series/index.js';
import { liveResolvers, liveFieldPermissions } from '../modules/live/index.js';
import { templateFieldReads, templateResolvers, templatesFieldPermissions, templatesPublishedReads } from '../modules/templates/index.js';
import { searchResolvers, searchFieldPermissions } from '../modules/search/index.js';
import { lineagePublishedReads, lineageResolvers } from '../modules/lineage/index.js';
import { historyPublishedReads, historyResolvers } from '../modules/history/index.js';
import { PUBLIC_API_ID, type FieldPermissions } from '../auth/field-api-ids.js';
import { projectPath } from '../paths.js';
import { FILTER_READS } from './lists.js';
import { combinePublishedReads } from './published-reads.js';
import { attachFieldReads } from './field-reads.js';
import { nodeFieldPermissions, nodeResolvers } from './nodes.js';

export const SDL_DIR = projectPath('graphql') + path.sep;

export function readTypeDefs(dir = SDL_DIR): string[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.graphql'))
    .sort()
    .map((file) => readFileSync(path.join(dir, file), 'utf8'));
}

const rootResolvers = (version: string): Resolvers => ({
  DateTime: DateTimeResolver,
  JSON: JSONResolver,
  Query: {
    version: () => version,
    // Read after the guard has admitted this field, by which time the operation has paid.
    rateLimit: (_root, _args, context) => context.access.rateLimit ?? null,
  },
  ...GRAPHQL_ENUM_VALUES,
});

/** Every root field's API ids, as each module declares them beside its resolvers. */
export const ROOT_FIELD_PERMISSIONS: FieldPermissions = {
  'Query.version': [PUBLIC_API_ID],
  'Query.rateLimit': [PUBLIC_API_ID],
  ...nodeFieldPermissions,
  ...alertsFieldPermissions,
  ...alertRulesFieldPermissions,
  ...auditFieldPermissions,
  ...connectorsFieldPermissions,
  ...dataAccessFieldPermissions,
  ...datasetsFieldPermissions,
  ...filesFieldPermissions,
  ...ingestionFieldPermissions,
  ...metricsFieldPermissions,
  ...piiFieldPermissions,
  ...schemaInferenceFieldPermissions,
  ...jobsFieldPermissions,
  ...seriesFieldPermissions,
  ...liveFieldPermissions,
  ...templatesFieldPermissions,
  ...searchFieldPermissions,
};

/** Root fields whose answers the published cache may keep, as each module declares them beside its resolvers. */
export const PUBLISHED_READS = combinePublishedReads(
  datasetsPublishedReads,
  templatesPublishedReads,
  connectorsPublishedReads,
  alertRulesPublishedReads,
  lineagePublishedReads,
  historyPublishedReads,
  {
    tables: {},
    filterReads: FILTER_READS,
  },
);

let sdlSchema: GraphQLSchema | undefined;

/**
 * The types of graphql/*.graphql, without resolvers: parsed and checked once per process (a tenth
 * of a start-up), read by the REST layer for its input shapes, and copied by each gateway with its
 * resolvers (buildSchema).
 */
export function sdlTypes(): GraphQLSchema {
  // Merged as makeExecutableSchema merges a list of sources, so the printed schema keeps its order.
  return (sdlSchema ??= buildASTSchema(mergeTypeDefs(readTypeDefs())));
}

export function buildSchema(version: string): GraphQLSchema {
  const schema = makeExecutableSchema({
    // A schema: its types are copied with the resolvers added, the shared one left as it is.
    typeDefs: sdlTypes(),
    resolvers: [
      rootResolvers(version),
      nodeResolvers,
      templateResolvers,
      datasetResolvers,
      dataAccessResolvers,
      ingestionResolvers,
      schemaInferenceResolvers,
      jobResolvers,
      connectorResolvers,
      fileResolvers,
      alertResolvers,
      alertRuleResolvers,
      piiResolvers,
      metricsResolvers,
      auditResolvers,
      seriesResolvers,
      liveResolvers,
      searchResolvers,
      lineageResolvers,
      historyResolvers,
    ],
    resolverValidationOptions: { requireResolversToMatchSchema: 'error' },
  });
  attachFieldReads(schema, { ...datasetFieldReads, ...alertRuleFieldReads, ...connectorFieldReads, ...templateFieldReads });
  return schema;
}
