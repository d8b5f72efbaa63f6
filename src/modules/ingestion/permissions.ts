// Who may call this module's root fields, by API id (config/permissions.json grants API ids to roles).
// Ingestion; its counters are figures about a dataset, like the original's dataset metrics.
import type { FieldPermissions } from '../../auth/field-api-ids.js';

export const ingestionFieldPermissions: FieldPermissions = {
  'Mutation.ingest': ['api.data.in'],
  'Query.checkEvent': ['api.schema.validator'],
  'Query.ingestionStats': ['api.dataset.metrics'],
};
