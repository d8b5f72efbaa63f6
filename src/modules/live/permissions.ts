// Who may subscribe to what, by API id: each field needs what reading the same thing needs.
import { PUBLIC_API_ID, type FieldPermissions } from '../../auth/field-api-ids.js';

export const liveFieldPermissions: FieldPermissions = {
  'Subscription.datasetChanged': ['api.datasets.read'],
  'Subscription.datasetChanges': ['api.datasets.read'],
  // A stream is given to whoever may read its query twin: alertRules, auditRecords.
  'Subscription.alertStateChanges': ['api.alert.list'],
  'Subscription.auditStream': ['api.audit.read'],
  'Subscription.alertRuleStateChanged': ['api.alert.get'],
  'Subscription.ingestionCounts': ['api.dataset.metrics'],
  'Subscription.metricSeries': ['api.data.metrics'],
  'Subscription.notificationSent': ['api.alert.notification.get'],
  // A live query needs what each Query field it selects needs: the gate admits those (gate.ts).
  'Subscription.live': [PUBLIC_API_ID],
};
