// Who may call this module's root fields, by API id (config/permissions.json grants API ids to roles).
// Pre-signed file links.
import type { FieldPermissions } from '../../auth/field-api-ids.js';

export const filesFieldPermissions: FieldPermissions = {
  'Mutation.generateFileUrls': ['api.files.generate-url'],
};
