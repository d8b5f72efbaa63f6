// Who may call this module's root fields, by API id (config/permissions.json grants API ids to roles).
// The audit trail: no group of the default policy names it, so only admin (*) reads it.
import type { FieldPermissions } from '../../auth/field-api-ids.js';

export const auditFieldPermissions: FieldPermissions = {
  'Query.auditRecords': ['api.audit.read'],
};
