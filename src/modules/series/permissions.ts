// Who may call this module's root fields, by API id: each frame needs what its JSON twin needs, and
// metricSeries what the Prometheus passthrough needs (it reads the same store).
import type { FieldPermissions } from '../../auth/field-api-ids.js';

export const seriesFieldPermissions: FieldPermissions = {
  'Query.metricSeries': ['api.data.metrics'],
  'Query.runTemplateFrame': ['api.query.template.query'],
  'Query.queryDatasetFrame': ['api.data.out'],
  'Query.sqlQueryFrame': ['api.obsrv.data.sql-query'],
};
