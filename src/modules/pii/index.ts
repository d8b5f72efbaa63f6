// The pii module as code outside src/modules/pii/ sees it: import it from here, never from one of its files.
// Declarations (types, lists, permissions) first: the GraphQL layer's registries read them at load time, possibly
// while another file of this module is still loading (an import cycle through src/graphql).
export { piiFieldPermissions } from './permissions.js';
export { detectValue, piiRules } from './detectors.js';
export { createPiiService, type PiiService } from './service.js';
export { piiResolvers } from './resolvers.js';
