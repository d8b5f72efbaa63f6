// The templates module as code outside src/modules/templates/ sees it: import it from here, never from one of its files.
// Declarations (types, lists, permissions) first: the GraphQL layer's registries read them at load time, possibly
// while another file of this module is still loading (an import cycle through src/graphql).
export { AGGREGATION_LEVEL_VALUES, QUERY_TEMPLATE_SORT_FIELD_VALUES, QUERY_TYPE_VALUES, type TemplatePage, type TemplateRecord } from './types.js';
export { templateDatasetLink, templateList } from './list.js';
export { templateFieldReads, templatesFieldPermissions, templatesPublishedReads } from './permissions.js';
export { type AggregationLevel, createTemplateRunner, MAX_RANGE_DAYS } from './run.js';
export { CLASH_SQL, createTemplateStore } from './store.js';
export { createTemplateService, type TemplateService } from './service.js';
export { templateResolvers } from './resolvers.js';
