// The pipeline's GraphQL half, set up once for every door: the executable schema with its guards
// (every root field by the API ids its module declares, every link by the read ids of the type it
// reaches), the persisted-operations list, the checks of a caller's document, the planner of kept
// answers, and the executor the HTTP doors run operations with (compiled per document).
import { fieldApiIds, type RestOperations } from '../../auth/field-api-ids.js';
import { guardLinks, guardRootFields } from '../../auth/guard.js';
import type { Config } from '../../config.js';
import type { Logger } from '../../logger.js';
import { withAuditTrail } from '../../modules/audit/index.js';
import { ingestionFieldPermissions } from '../../modules/ingestion/index.js';
import { metricsFieldPermissions } from '../../modules/metrics/index.js';
import type { PrismaClient } from '../../generated/prisma/client.js';
import { knownTableRows } from '../../platform/lists/list-query.js';
import { LINK_READ_API_IDS } from '../nodes.js';
import { FILTER_READS } from '../lists.js';
import { guardLinkedFilters } from '../../auth/filter-guard.js';
import { loadPersistedOperations } from '../persisted-operations.js';
import { readPlanner } from '../published-reads.js';
import { compiledExecutor } from '../compiled-execution.js';
import { buildSchema, PUBLISHED_READS, ROOT_FIELD_PERMISSIONS } from '../schema.js';
import { OperationChecks } from './operation-checks.js';

const COMPILED_SOURCE_CHARACTERS_MAX = 100_000;

export interface OperationPipelineOptions {
  config: Config;
  logger: Logger;
  prisma: PrismaClient;
  gatewayVersion: string;
  /** The REST table's entries: each must declare the API ids of the root fields it runs. */
  restEntries: readonly RestOperations[];
}

export function createOperationPipeline({ config, logger, prisma, gatewayVersion, restEntries }: OperationPipelineOptions) {
  // Every mutation writes an audit record, over GraphQL and REST alike (both execute this schema).
  const schema = withAuditTrail(buildSchema(gatewayVersion));
  const apiIds = fieldApiIds(schema, ROOT_FIELD_PERMISSIONS, restEntries);
  const permissionGaps = [...apiIds.undeclared.map((coordinate) => `${coordinate} declares no API id`), ...apiIds.restMismatches];
  if (permissionGaps.length > 0) throw new Error(`root field permissions do not fit the schema or the REST table:\n  - ${permissionGaps.join('\n  - ')}`);
  guardRootFields(schema, apiIds.byField);
  // A record reached through a link is no more open than the root fields that read it (nodes.ts).
  guardLinks(schema, LINK_READ_API_IDS);
  // A filter through a link (datasets by their rules' severity) is no more open than the link.
  guardLinkedFilters(schema, FILTER_READS);

  const { file: persistedFile, requiredFor: persistedRequiredFor } = config.graphql.persistedOperations;
  const persisted = loadPersistedOperations(schema, persistedFile);
  logger.info(`persisted operations: ${persisted.size} on the allow list; required for ${persistedRequiredFor.length > 0 ? persistedRequiredFor.join(', ') : 'nobody'}`);
  // A count is priced by the rows its list's table holds (read at start-up), before it runs.
  const cost = { unboundedPageSize: largestListPage(config), tableRows: knownTableRows(prisma) };
  const checks = new OperationChecks({ schema, limits: { ...config.graphqlLimits, cost }, jsonLimits: config.jsonLimits, persisted, persistedRequiredFor });

  // A kept answer holding health or counters is served only to a caller their own fields admit.
  const figuresApiIds = { DatasetHealth: metricsFieldPermissions['Query.datasetHealth']!, IngestionStats: ingestionFieldPermissions['Query.ingestionStats']! };
  const planOf = readPlanner(schema, PUBLISHED_READS, ROOT_FIELD_PERMISSIONS, { ...LINK_READ_API_IDS, ...figuresApiIds }, config.graphql.figuresMaxAgeMs);
  // The compiled code of the documents run most recently is kept, up to this much of their text:
  // five times the REST entries' (20,000 characters), at most some 30 MiB of code.
  const execute = compiledExecutor(schema, { maxSourceCharacters: COMPILED_SOURCE_CHARACTERS_MAX });
  return { schema, apiIdsByField: apiIds.byField, checks, planOf, execute };
}

/** The largest page any list serves, which a list field with `first: null` returns (costed as such). */
function largestListPage(config: Config): number {
  return Math.max(config.templates.listMax, config.datasets.listMax, config.connectors.listMax, config.alerting.listMax);
}
