// Who may call this module's root fields, by API id (config/permissions.json grants API ids to roles).
// Ad-hoc queries read any Live dataset's data, as the original's data-out API does.
import type { FieldPermissions } from '../../auth/field-api-ids.js';

export const dataAccessFieldPermissions: FieldPermissions = {
  'Query.queryDataset': ['api.data.out'],
  'Query.sqlQuery': ['api.obsrv.data.sql-query'],
  'Query.datasetExhaust': ['api.data.exhaust'],
};
