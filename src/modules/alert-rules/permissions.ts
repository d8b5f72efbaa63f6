// Who may call this module's root fields, by API id (config/permissions.json grants API ids to roles).
// The ids are the original's (api.alert.create, api.alert.list, ...).
import type { FieldPermissions } from '../../auth/field-api-ids.js';

export const alertRulesFieldPermissions: FieldPermissions = {
  'Query.alertRule': ['api.alert.get'],
  'Query.alertRules': ['api.alert.list'],
  'Query.prometheusRules': ['api.alert.rules.export'],
  'Mutation.createAlertRule': ['api.alert.create'],
  'Mutation.updateAlertRule': ['api.alert.update'],
  'Mutation.publishAlertRule': ['api.alert.publish'],
  'Mutation.deleteAlertRule': ['api.alert.delete'],
  'Mutation.deleteAlertRules': ['api.alert.delete.bulk'],
};
