// The one executable schema: SDL from graphql/*.graphql plus every module's resolvers. Both the
// GraphQL endpoint and the REST layer execute against it.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { DateTimeResolver, JSONResolver } from 'graphql-scalars';
import type { GraphQLSchema } from 'graphql';
import type { Resolvers } from '../generated/graphql.js';
import { alertResolvers } from '../modules/alerts/resolvers.js';
import { alertRuleResolvers } from '../modules/alert-rules/resolvers.js';
import { GRAPHQL_ENUM_VALUES } from './enum-values.js';
import { auditResolvers } from '../modules/audit/resolvers.js';
import { connectorResolvers } from '../modules/connectors/resolvers.js';
import { dataAccessResolvers } from '../modules/data-access/resolvers.js';
import { datasetResolvers } from '../modules/datasets/resolvers.js';
import { fileResolvers } from '../modules/files/resolvers.js';
import { ingestionResolvers } from '../modules/ingestion/resolvers.js';
import { metricsResolvers } from '../modules/metrics/resolvers.js';
import { piiResolvers } from '../modules/pii/resolvers.js';
import { schemaInferenceResolvers } from '../modules/schema-inference/resolvers.js';
import { seriesResolvers } from '../modules/series/resolvers.js';
import { liveResolvers } from '../modules/live/resolvers.js';
import { templateResolvers } from '../modules/templates/resolvers.js';
import { searchResolvers } from '../modules/search/resolvers.js';
import { PUBLIC_API_ID, type FieldPermissions } from '../auth/field-api-ids.js';
import { alertsFieldPermissions } from '../modules/alerts/permissions.js';
import { alertRulesFieldPermissions, alertRulesPublishedReads } from '../modules/alert-rules/permissions.js';
import { auditFieldPermissions } from '../modules/audit/permissions.js';
import { connectorsFieldPermissions, connectorsPublishedReads } from '../modules/connectors/permissions.js';
import { datasetsFieldPermissions, datasetsPublishedReads } from '../modules/datasets/permissions.js';
import { dataAccessFieldPermissions } from '../modules/data-access/permissions.js';
import { filesFieldPermissions } from '../modules/files/permissions.js';
import { ingestionFieldPermissions } from '../modules/ingestion/permissions.js';
import { metricsFieldPermissions } from '../modules/metrics/permissions.js';
import { piiFieldPermissions } from '../modules/pii/permissions.js';
import { schemaInferenceFieldPermissions } from '../modules/schema-inference/permissions.js';
import { seriesFieldPermissions } from '../modules/series/permissions.js';
import { liveFieldPermissions } from '../modules/live/permissions.js';
import { templatesFieldPermissions, templatesPublishedReads } from '../modules/templates/permissions.js';
import { searchFieldPermissions } from '../modules/search/permissions.js';
import { projectPath } from '../paths.js';
import { combinePublishedReads } from './published-reads.js';
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
  ...seriesFieldPermissions,
  ...liveFieldPermissions,
  ...templatesFieldPermissions,
  ...searchFieldPermissions,
};

/** Root fields whose answers the published cache may keep, as each module declares them beside its resolvers. */
export const PUBLISHED_READS = combinePublishedReads(datasetsPublishedReads, templatesPublishedReads, connectorsPublishedReads, alertRulesPublishedReads);

export function buildSchema(version: string): GraphQLSchema {
  return makeExecutableSchema({
    typeDefs: readTypeDefs(),
    resolvers: [
      rootResolvers(version),
      nodeResolvers,
      templateResolvers,
      datasetResolvers,
      dataAccessResolvers,
      ingestionResolvers,
      schemaInferenceResolvers,
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
    ],
    resolverValidationOptions: { requireResolversToMatchSchema: 'error' },
  });
}
