// The ingestion module as code outside src/modules/ingestion/ sees it: import it from here, never from one of its files.
// Declarations (types, lists, permissions) first: the GraphQL layer's registries read them at load time, possibly
// while another file of this module is still loading (an import cycle through src/graphql).
export { ingestionFieldPermissions } from './permissions.js';
export { datasetIngestionFields } from './dataset-filters.js';
export { INGEST_OUTCOME_VALUES, INGEST_REFUSAL_STAGE_VALUES } from './outcome.js';
export { INGESTION_SERIES, IngestionCounters, type IngestionCounts } from './counters.js';
export { ingestionProcessing } from './pipeline.js';
export { SYSTEM_EVENTS_DATASOURCE, SystemEventsRecorder } from './system-events.js';
export { createIngestionCounterStore } from './store.js';
export { createIngestionService, type IngestionService } from './service.js';
export { ingestionResolvers } from './resolvers.js';
