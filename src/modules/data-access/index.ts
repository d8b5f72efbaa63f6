// The data-access module as code outside src/modules/data-access/ sees it: import it from here, never from one of its files.
// Declarations (types, lists, permissions) first: the GraphQL layer's registries read them at load time, possibly
// while another file of this module is still loading (an import cycle through src/graphql).
export { EXHAUST_TYPE_VALUES } from './types.js';
export { dataAccessFieldPermissions } from './permissions.js';
export { createMetricsQueries, type DatasourceSizePage, type MetricsQueries } from './metrics.js';
export { createDataAccessService, type DataAccessService } from './service.js';
export { dataAccessResolvers } from './resolvers.js';
