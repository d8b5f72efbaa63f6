// Who may call this module's root fields, by API id (config/permissions.json grants API ids to roles).
// The connector registry.
import type { FieldPermissions } from '../../auth/field-api-ids.js';

export const connectorsFieldPermissions: FieldPermissions = {
  'Query.connector': ['api.connectors.read'],
  'Query.connectors': ['api.connectors.list'],
  'Mutation.registerConnector': ['api.connector.register'],
};
