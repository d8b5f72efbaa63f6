// The history module as code outside src/modules/history/ sees it: import it from here, never from one of its files.
export type { ChangedPath, HistoryEntry } from './types.js';
export { createHistoryStore } from './store.js';
export { createHistoryService, type HistoryPage, type HistoryService } from './service.js';
export { historyPublishedReads } from './permissions.js';
export { historyResolvers } from './resolvers.js';
