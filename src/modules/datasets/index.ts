// The datasets module as code outside src/modules/datasets/ sees it: import it from here, never from one of its files.
// Declarations (types, lists, permissions) first: the GraphQL layer's registries read them at load time, possibly
// while another file of this module is still loading (an import cycle through src/graphql).
export {
  CHANGE_ACTION_VALUES,
  DATASET_STATUS_VALUES,
  DATASET_TRANSITION_VALUES,
  DATASET_TYPE_VALUES,
  DATASET_VERSION_VALUES,
  type DatasetPage,
  type DatasetRecord,
  type DatasetVersionStamp,
  type JsonObject,
  RESET_CATEGORY_VALUES,
  type Stage,
} from './types.js';
export { datasetList } from './list.js';
export { datasetFieldReads, datasetsFieldPermissions, datasetsPublishedReads } from './permissions.js';
export { CONNECTOR_KEY_BYTES, createConnectorSecrets } from './connector-secrets.js';
export type { DatasourceEntry, DatasourcePage } from './datasources.js';
export { type ConnectorInstance, DATASET_ID_MAX_LENGTH, datasetIdLengthProblem } from './definition.js';
export type { ConnectorInstancePage } from './connector-page.js';
export { createDatasetStore, type DatasetVersionList } from './store.js';
export { createDatasetService, type DatasetService, type DatasetVersions } from './service.js';
export { datasetResolvers } from './resolvers.js';
