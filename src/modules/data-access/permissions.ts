// Who may call this module's root fields, by API id (config/permissions.json grants API ids to roles).
// Ad-hoc queries read any Live dataset's data, as the original's data-out API does.
import type { FieldPermissions } from '../../auth/field-api-ids.js';

export const dataAccessFieldPermissions: FieldPermissions = {
  'Query.queryDataset': ['api.data.out'],
  'Query.sqlQuery': ['api.obsrv.data.sql-query'],
  'Query.datasetExhaust': ['api.data.exhaust'],
  // The console's dashboards: Prometheus's read API, native queries and datasource sizes.
  'Query.prometheus': ['api.data.metrics'],
  'Query.druidNativeQuery': ['api.data.metrics'],
  'Query.datasourceSizes': ['api.druid.datasources'],
  'Query.datasourceSizePage': ['api.druid.datasources'],
};
