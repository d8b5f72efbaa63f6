// The metrics module as code outside src/modules/metrics/ sees it: import it from here, never from one of its files.
// Declarations (types, lists, permissions) first: the GraphQL layer's registries read them at load time, possibly
// while another file of this module is still loading (an import cycle through src/graphql).
export { HEALTH_CATEGORY_VALUES, HEALTH_STATUS_VALUES, METRIC_CATEGORY_VALUES, METRIC_COMPONENT_TYPE_VALUES } from './types.js';
export { metricsFieldPermissions } from './permissions.js';
export { createHealthService, type DatasetHealth, type HealthService } from './health.js';
export { createMetricsService, type MetricsService } from './service.js';
export { metricsResolvers } from './resolvers.js';
