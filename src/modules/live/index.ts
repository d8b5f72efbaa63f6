// The live module as code outside src/modules/live/ sees it: import it from here, never from one of its files.
// Declarations (types, lists, permissions) first: the GraphQL layer's registries read them at load time, possibly
// while another file of this module is still loading (an import cycle through src/graphql).
export { liveFieldPermissions } from './permissions.js';
export { announceLive } from './announcements.js';
export { sharedEvaluationContext } from './context.js';
export { type DatasetChange, LiveEvents } from './events.js';
export { createChangeLogStore, positionOf } from './change-log.js';
export { CHANGE_LOGS, CHANGE_STREAM_FIELDS, type ChangeStreamField, createChangeLogStores } from './change-logs.js';
export { LiveGate, type PreparedSubscription, resumedAt } from './gate.js';
export { type ErrorFormatter, type EvaluationAccess, formatLiveResult, type LiveSubscriber, type Membership, type SharedResult, SharedSubscriptions, subscribedFields } from './multiplexer.js';
export { liveResolvers } from './resolvers.js';
