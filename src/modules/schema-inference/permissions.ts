// Who may call this module's root fields, by API id (config/permissions.json grants API ids to roles).
// Schema inference from sample events.
import type { FieldPermissions } from '../../auth/field-api-ids.js';

export const schemaInferenceFieldPermissions: FieldPermissions = {
  'Query.inferSchema': ['api.datasets.dataschema'],
};
