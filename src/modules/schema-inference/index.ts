// The schema-inference module as code outside src/modules/schema-inference/ sees it: import it from here, never from one of its files.
// Declarations (types, lists, permissions) first: the GraphQL layer's registries read them at load time, possibly
// while another file of this module is still loading (an import cycle through src/graphql).
export { SCHEMA_SUGGESTION_SEVERITY_VALUES } from './types.js';
export { schemaInferenceFieldPermissions } from './permissions.js';
export { createSchemaInferenceService, SCHEMA_INFERENCE_LIMITS, type SchemaInferenceService } from './service.js';
export { schemaInferenceResolvers } from './resolvers.js';
