// Who may call this module's root fields, by API id (config/permissions.json grants API ids to roles).
// Silences, metric aliases and notification channels.
import type { FieldPermissions } from '../../auth/field-api-ids.js';

export const alertsFieldPermissions: FieldPermissions = {
  'Query.silence': ['api.alert.silence.get'],
  'Query.silences': ['api.alert.silence.list'],
  'Query.metricAlias': ['api.metric.get'],
  'Query.metricAliases': ['api.metric.list'],
  'Query.notificationChannel': ['api.alert.notification.get'],
  'Query.notificationChannels': ['api.alert.notification.list'],
  'Mutation.createSilence': ['api.alert.silence.create'],
  'Mutation.updateSilence': ['api.alert.silence.update'],
  'Mutation.deleteSilence': ['api.alert.silence.delete'],
  'Mutation.createMetricAlias': ['api.metric.add'],
  'Mutation.updateMetricAlias': ['api.metric.update'],
  'Mutation.deleteMetricAlias': ['api.metric.remove'],
  'Mutation.createNotificationChannel': ['api.alert.notification.create'],
  'Mutation.publishNotificationChannel': ['api.alert.notification.publish'],
  'Mutation.updateNotificationChannel': ['api.alert.notification.update'],
  'Mutation.deleteNotificationChannel': ['api.alert.notification.delete'],
  'Mutation.testNotificationChannel': ['api.alert.notification.test'],
};
