// The search module as code outside src/modules/search/ sees it: import it from here, never from one of its files.
// Declarations (types, lists, permissions) first: the GraphQL layer's registries read them at load time, possibly
// while another file of this module is still loading (an import cycle through src/graphql).
export { SEARCH_FACET_FIELD_VALUES, SEARCH_FILTER_FIELD_VALUES, SEARCH_MATCH_FIELD_VALUES, SEARCH_ORDER_FIELD_VALUES, SEARCH_STATUS_VALUES, SEARCH_TYPE_VALUES } from './types.js';
export { searchFieldPermissions } from './permissions.js';
export { createSearchStore } from './store.js';
export { createSearchService, type SearchService } from './service.js';
export { searchResolvers, type SearchResultEdge, type SearchResults, type SuggestionRecord } from './resolvers.js';
