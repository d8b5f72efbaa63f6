// Who may call this module's root fields, by API id (config/permissions.json grants API ids to roles).
// The connector registry.
import type { FieldPermissions } from '../../auth/field-api-ids.js';
import type { PublishedReads } from '../../graphql/published-reads.js';

export const connectorsFieldPermissions: FieldPermissions = {
  'Query.connector': ['api.connectors.read'],
  'Query.connectors': ['api.connectors.list'],
  'Mutation.registerConnector': ['api.connector.register'],
};

/** Root fields whose answers are made of published records only (kept until one of these tables changes). */
export const connectorsPublishedReads: PublishedReads = {
  tables: { 'Query.connector': ['connector_registry'], 'Query.connectors': ['connector_registry'] },
};
