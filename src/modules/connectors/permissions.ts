// Who may call this module's root fields, by API id (config/permissions.json grants API ids to roles).
// The connector registry.
import type { FieldPermissions } from '../../auth/field-api-ids.js';
import type { FieldReads } from '../../graphql/field-reads.js';
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

/**
 * The record fields each field of a listed connector reads (src/graphql/field-reads.ts): the
 * registry's list reads those columns only, so a catalogue page leaves each form (`uiSpec`) unread.
 */
export const connectorFieldReads: FieldReads = {
  ...Object.fromEntries(
    ['connectorId', 'name', 'type', 'category', 'version', 'description', 'technology', 'runtime', 'licence', 'owner', 'iconUrl', 'status', 'uiSpec', 'sourceUrl', 'createdBy', 'updatedBy'].map(
      (field) => [`Connector.${field}`, [field === 'iconUrl' ? 'iconurl' : field]],
    ),
  ),
  'Connector.id': ['id'],
  'Connector.connectorVersionId': ['id'],
  'Connector.createdAt': ['createdDate'],
  'Connector.updatedAt': ['updatedDate'],
  'Connector.liveAt': ['liveDate'],
};
