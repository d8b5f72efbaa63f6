// Who may call this module's root fields, by API id (config/permissions.json grants API ids to roles).
// PII detection.
import type { FieldPermissions } from '../../auth/field-api-ids.js';

export const piiFieldPermissions: FieldPermissions = {
  'Query.analyzePii': ['api.data.analyze.pii', 'api.system.data.analyze.pii'],
};
