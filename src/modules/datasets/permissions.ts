// Who may call this module's root fields, by API id (config/permissions.json grants API ids to roles).
// Datasets. `dataset` also serves the metrics call (`dataset(id) { metrics }`); `editDataset` makes a
// draft (a write), so it needs the update permission, not read.
import type { FieldPermissions } from '../../auth/field-api-ids.js';
import type { FieldReads } from '../../graphql/field-reads.js';
import type { PublishedReads } from '../../graphql/published-reads.js';

export const datasetsFieldPermissions: FieldPermissions = {
  'Query.dataset': ['api.datasets.read', 'api.dataset.metrics'],
  'Query.datasets': ['api.datasets.list'],
  'Query.exportDataset': ['api.datasets.export'],
  'Mutation.editDataset': ['api.datasets.update'],
  'Query.datasources': ['api.datasources.list'],
  'Query.datasourcePage': ['api.datasources.list'],
  'Mutation.setDatasetAlias': ['api.datasets.alias'],
  'Mutation.resetDataset': ['api.datasets.reset'],
  'Mutation.createDataset': ['api.datasets.create'],
  'Mutation.updateDataset': ['api.datasets.update'],
  'Mutation.importDataset': ['api.datasets.import'],
  'Mutation.copyDataset': ['api.datasets.copy'],
  'Mutation.transitionDataset': ['api.datasets.status-transition'],
};

/** Root fields whose answers are made of published records only (kept until one of these tables changes). */
export const datasetsPublishedReads: PublishedReads = {
  tables: { 'Query.dataset': ['datasets'], 'Query.datasets': ['datasets'] },
  // A read of one dataset's own fields is made of that dataset alone (its id is the announcements' key).
  records: { 'Query.dataset': { table: 'datasets', argument: 'id' } },
  // Count events over chosen windows: never kept.
  unpublished: ['Dataset.metrics', 'Dataset.ingestionSeries'],
  linked: {
    'Dataset.templates': ['query_templates'],
    'Dataset.templatePage': ['query_templates'],
    'DatasetConnector.connector': ['connector_registry'],
    'Dataset.alertRules': ['alert_rules'],
    'Dataset.alertRulePage': ['alert_rules'],
  },
  // The counters (bumped by every ingest call) and the health probes: kept for GRAPHQL_FIGURES_MAX_AGE_MS at most.
  figures: ['Dataset.ingestion', 'Dataset.health'],
};

/**
 * The record fields each field of a listed dataset reads (src/graphql/field-reads.ts): a dataset list
 * reads those columns only. Fields that hand the record itself on (`live`, `draft`,
 * `sectionsAsWritten`) or read many of its sections (`config`, `definition`) declare nothing, so a
 * selection holding one reads whole rows.
 */
export const datasetFieldReads: FieldReads = {
  'Dataset.id': ['datasetId', 'stage'],
  ...Object.fromEntries(
    ['datasetId', 'name', 'type', 'status', 'stage', 'tags', 'version', 'versionKey', 'apiVersion', 'dataSchema', 'sampleData', 'entryTopic', 'createdBy', 'updatedBy', 'alias'].map((field) => [
      `Dataset.${field}`,
      [field],
    ]),
  ),
  'Dataset.createdAt': ['createdDate'],
  'Dataset.updatedAt': ['updatedDate'],
  'Dataset.publishedAt': ['publishedDate'],
  'Dataset.fields': ['dataSchema'],
  'Dataset.connectors': ['connectorsConfig'],
  'Dataset.connectorPage': ['connectorsConfig'],
  'Dataset.denormSources': ['denormSources'],
  'Dataset.denormSourcePage': ['denormSources'],
  // Fields other modules resolve from the dataset's id (and, for its health, whether it is Live).
  'Dataset.health': ['datasetId', 'stage', 'status'],
  ...Object.fromEntries(
    ['metrics', 'ingestion', 'ingestionSeries', 'alertRules', 'alertRulePage', 'templates', 'templatePage', 'history', 'lineage'].map((field) => [`Dataset.${field}`, ['datasetId']]),
  ),
};
