// Who may call this module's root fields, by API id (config/permissions.json grants API ids to roles).
// The ids are the original's (api.alert.create, api.alert.list, ...).
import type { FieldPermissions } from '../../auth/field-api-ids.js';
import type { FieldReads } from '../../graphql/field-reads.js';
import type { PublishedReads } from '../../graphql/published-reads.js';

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

/**
 * An answer that reaches alert rules through a link (a dataset's alertRules) is made of alert_rules
 * and, through their channels, notification_channels (both announced); what the evaluator writes at
 * every evaluation (state, silences, notifications: no announced table) is never kept.
 */
export const alertRulesPublishedReads: PublishedReads = {
  tables: {},
  unpublished: ['AlertRule.evaluation', 'AlertRule.silence', 'AlertRule.notifications', 'AlertRule.notificationPage'],
  linked: { 'AlertRule.channels': ['notification_channels'], 'AlertRule.channelPage': ['notification_channels'], 'AlertRule.dataset': ['datasets'] },
};

/**
 * The record fields each field of a listed alert rule reads (src/graphql/field-reads.ts): the rule
 * list reads those columns only. The console's views of a rule (`queryBuilder`, `clientContext`,
 * `alertType`) read several of its fields and declare nothing, so a selection holding one reads whole rows.
 */
export const alertRuleFieldReads: FieldReads = {
  ...Object.fromEntries(
    [
      'name',
      'manager',
      'status',
      'description',
      'metric',
      'operator',
      'thresholds',
      'expression',
      'severity',
      'category',
      'labels',
      'annotations',
      'metadata',
      'channelIds',
      'context',
      'createdBy',
      'updatedBy',
    ].map((field) => [`AlertRule.${field}`, [field]]),
  ),
  'AlertRule.evaluationInterval': ['evaluationIntervalMs'],
  'AlertRule.pendingPeriod': ['pendingForMs'],
  'AlertRule.createdAt': ['createdDate'],
  'AlertRule.updatedAt': ['updatedDate'],
  'AlertRule.channels': ['channelIds'],
  'AlertRule.channelPage': ['channelIds'],
  // The rule's dataset: its label, else its context's datasetId (datasetOfRule).
  'AlertRule.dataset': ['labels', 'context'],
  // Read by the rule's id: the evaluator's state, silences and notifications, its history and lineage.
  ...Object.fromEntries(['id', 'alertRuleId', 'evaluation', 'silence', 'muted', 'notifications', 'notificationPage', 'history', 'lineage'].map((field) => [`AlertRule.${field}`, ['id']])),
};
