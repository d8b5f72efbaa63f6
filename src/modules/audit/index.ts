// The audit module as code outside src/modules/audit/ sees it: import it from here, never from one of its files.
// Declarations (types, lists, permissions) first: the GraphQL layer's registries read them at load time, possibly
// while another file of this module is still loading (an import cycle through src/graphql).
export { AUDIT_OUTCOME_VALUES, AUDIT_TRANSPORT_VALUES, type AuditOutcome, type AuditPage, type AuditRecord, type AuditTransport } from './types.js';
export { auditList } from './list.js';
export { auditFieldPermissions } from './permissions.js';
export { withAuditTrail } from './trail.js';
export { createAuditStore } from './store.js';
export { AUDIT_LIST_MAX, auditCursor, type AuditService, createAuditService } from './service.js';
export { auditResolvers } from './resolvers.js';
