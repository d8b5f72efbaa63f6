// The lineage module as code outside src/modules/lineage/ sees it: import it from here, never from one of its files.
export type { Lineage, LineageEdge, LineageNode, LineageRef } from './types.js';
export { createLineageStore } from './store.js';
export { createLineageService, type LineageService, type LineageRequest } from './service.js';
export { lineagePublishedReads } from './permissions.js';
export { lineageResolvers } from './resolvers.js';
