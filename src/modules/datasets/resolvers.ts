// GraphQL resolvers for datasets: arguments in, service call, result out. Nested versions and
// denorm sources go through the per-request DataLoader, so a list costs a constant number of queries.
import { nodeFieldReads } from '../../graphql/field-reads.js';
import { globalId } from '../../graphql/global-id.js';
import { listConnectionResolvers, pageConnectionResolvers } from '../../graphql/list-connection.js';
import { checkLegacyValues, legacyEq, legacyIn, withLegacyFilter } from '../../platform/lists/legacy-filter.js';
import type { CreateDatasetInput, Resolvers, UpdateDatasetInput } from '../../generated/graphql.js';
import { connectorInstances, withCacheNames, type ConnectorInstance } from './definition.js';
import { toListDocument } from '../../platform/dataset-document.js';
import { datasetConfiguration, transformations } from './configuration.js';
import { schemaFields } from './schema-fields.js';
import type { DatasourceEntry } from './datasources.js';
import type { DatasetDraftInput, DatasetRecord, DatasetUpdateInput, ItemChangeInput } from './types.js';

const changes = (list: readonly { action: string; value: unknown }[] | null | undefined): ItemChangeInput[] | undefined =>
  list?.map((change) => ({ action: change.action as ItemChangeInput['action'], value: change.value }));

/** The sections both inputs share, in the domain's names. */
function sections(input: CreateDatasetInput | UpdateDatasetInput) {
  return {
    datasetId: input.id,
    name: input.name,
    type: input.type,
    dataSchema: input.dataSchema,
    datasetConfig: input.datasetConfig,
    extractionConfig: input.extractionConfig,
    validationConfig: input.validationConfig,
    dedupConfig: input.dedupConfig,
    sampleData: input.sampleData,
  };
}

function draftInput(input: CreateDatasetInput): DatasetDraftInput {
  return { ...sections(input), name: input.name, denormConfig: input.denormConfig, transformationsConfig: input.transformations, connectorsConfig: input.connectors, tags: input.tags };
}

function updateInput(input: UpdateDatasetInput): DatasetUpdateInput {
  const denormFields = changes(input.denormFields);
  const denormSettings = (input.denormSettings ?? undefined) as Record<string, unknown> | undefined;
  return {
    ...sections(input),
    versionKey: input.versionKey,
    denormConfig: denormFields || denormSettings ? { ...denormSettings, ...(denormFields ? { denorm_fields: denormFields } : {}) } : undefined,
    transformationsConfig: changes(input.transformations),
    connectorsConfig: changes(input.connectors),
    tags: changes(input.tags),
  };
}

/** A version's sections as stored; old records may carry the original's redis_db_* names, and the API speaks cache_db_*. */
const asWritten = {
  datasetConfig: (dataset: DatasetRecord) => withCacheNames(dataset.datasetConfig),
  denormConfig: (dataset: DatasetRecord) => withCacheNames(dataset.denormConfig),
  transformations: (dataset: DatasetRecord) => dataset.transformationsConfig,
  connectors: (dataset: DatasetRecord) => dataset.connectorsConfig,
} satisfies Resolvers['DatasetSectionsAsWritten'];

export const datasetResolvers: Resolvers = {
  Query: {
    dataset: (_, { id, version, status }, { services, loaders }) => services.datasets.get(id, { stage: version ?? 'live', status }, loaders.datasetVersions),
    datasets: (_, { filter, where, orderBy, first, after, last, before }, { services }, info) => {
      checkLegacyValues('DATASET_LIST_INPUT_INVALID', 'status', filter?.status);
      const query = {
        // An empty status list of the older filter selects every status, as it always did.
        where: withLegacyFilter(where, { ...legacyIn('status', filter?.status?.length ? filter.status : undefined), ...legacyEq('type', filter?.type) }),
        orderBy,
        first,
        after,
        last,
        before,
      };
      return services.datasets.list(query, nodeFieldReads(info));
    },
    exportDataset: (_, { id, status }, { services }) => services.datasets.export(id, status),
    datasources: (_, { filter }, { services }) => services.datasets.datasources({ statuses: filter?.status, type: filter?.type }, 'whole'),
    datasourcePage: (_, args, { services }) => services.datasets.datasourcePage(args),
  },
  Mutation: {
    editDataset: (_, { id }, { services, actor }) => services.datasets.edit(id, actor),
    setDatasetAlias: (_, { id, alias, table }, { services }) => services.datasets.setAlias(id, alias, table),
    resetDataset: (_, { id, category }, { services }) => services.datasets.reset(id, category),
    createDataset: (_, { input }, { services, actor }) => services.datasets.create(draftInput(input), actor),
    updateDataset: (_, { input }, { services, actor }) => services.datasets.update(updateInput(input), actor),
    importDataset: async (_, { definition, overwrite }, { services, actor, loaders }) => {
      const imported = await services.datasets.importDefinition(definition, { overwrite: overwrite ?? true }, actor);
      return {
        id: imported.datasetId,
        versionKey: imported.versionKey,
        message: imported.partial ? 'Dataset is partially imported' : 'Dataset is imported successfully',
        ignoredFields: imported.ignoredFields,
        dataset: await services.datasets.get(imported.datasetId, { stage: 'draft' }, loaders.datasetVersions),
      };
    },
    copyDataset: async (_, { input }, { services, actor }) => ({
      dataset: await services.datasets.copy({ sourceId: input.sourceId, sourceStage: input.sourceVersion, destinationId: input.destinationId }, actor),
      message: 'Dataset clone successful',
    }),
    transitionDataset: async (_, { id, to }, { services, actor }) => ({
      id,
      dataset: await services.datasets.transition(id, to, actor),
      message: `Dataset status transition to ${to} successful`,
    }),
  },
  Dataset: {
    id: (dataset) => globalId('Dataset', dataset.datasetId, dataset.stage),
    // The deprecated section fields read what sectionsAsWritten does.
    datasetConfig: (dataset) => asWritten.datasetConfig(dataset),
    denormConfig: (dataset) => asWritten.denormConfig(dataset),
    transformations: (dataset) => asWritten.transformations(dataset),
    sectionsAsWritten: (dataset) => dataset,
    fields: (dataset) => schemaFields(dataset.dataSchema),
    config: (dataset) => datasetConfiguration(dataset),
    fieldTransformations: (dataset) => transformations(dataset),
    connectors: (dataset) => connectorInstances(dataset),
    connectorPage: (dataset, { where, orderBy, first, after, last, before }, { services }) => services.datasets.connectorPage(dataset, { where, orderBy, first, after, last, before }),
    createdAt: (dataset) => dataset.createdDate,
    updatedAt: (dataset) => dataset.updatedDate,
    publishedAt: (dataset) => dataset.publishedDate,
    live: async (dataset, _, { loaders }) => (dataset.stage === 'live' ? dataset : ((await loaders.datasetVersions.load(dataset.datasetId)).live ?? null)),
    draft: async (dataset, _, { loaders }) => (dataset.stage === 'draft' ? dataset : ((await loaders.datasetVersions.load(dataset.datasetId)).draft ?? null)),
    denormSources: async (dataset, _, { loaders }) => {
      const versions = await loaders.datasetVersions.loadMany(dataset.denormSources);
      return versions.flatMap((found) => (found instanceof Error || !found.live ? [] : [found.live]));
    },
    denormSourcePage: (dataset, { where, orderBy, first, after, last, before }, { loaders, services }) =>
      services.datasets.denormSourcePage(loaders, dataset, { where, orderBy, first, after, last, before }),
    definition: (dataset, { fields }, { services }) => services.datasets.document(dataset, fields),
    listRecord: (dataset) => toListDocument(dataset),
  },
  DatasetSectionsAsWritten: asWritten,
  DatasetConnection: listConnectionResolvers<DatasetRecord>(),
  DatasetConnectorConnection: pageConnectionResolvers<ConnectorInstance>(),
  DatasourceConnection: listConnectionResolvers<DatasourceEntry>(),
  Datasource: {
    id: (entry) => globalId('Datasource', entry.datasetId),
    dataset: async (entry, _, context) => {
      return (await context.loaders.datasetVersions.load(entry.datasetId)).live ?? null;
    },
  },
};
