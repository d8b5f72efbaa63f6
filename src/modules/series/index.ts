// The series module as code outside src/modules/series/ sees it: import it from here, never from one of its files.
// Declarations (types, lists, permissions) first: the GraphQL layer's registries read them at load time, possibly
// while another file of this module is still loading (an import cycle through src/graphql).
export { seriesFieldPermissions } from './permissions.js';
export { createSeriesService, type IngestionPoint, type IngestionSeriesKey, type SeriesService, stepGrid, type TimeSeries } from './series.js';
export { seriesResolvers } from './resolvers.js';
