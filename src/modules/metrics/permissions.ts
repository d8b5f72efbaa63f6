// Who may call this module's root fields, by API id (config/permissions.json grants API ids to roles).
// Dataset health checks: general_access in the default policy, as the original's console needs them.
import type { FieldPermissions } from '../../auth/field-api-ids.js';

export const metricsFieldPermissions: FieldPermissions = {
  'Query.datasetHealth': ['api.dataset.health'],
};
