// The alert-rule list's contract: what a `where`, `orderBy` and `groupBy` may name, and the indexed
// column each reads (migration 20261202000000_list_indexes). The order input (AlertRuleOrder) is
// older than the contract and written in graphql/alert-rules.graphql.
import { changeTimeFields, createdAtField, uuidIdField, defineList } from '../../platform/lists/declaration.js';
import type { ListLink } from '../../platform/lists/nested-list.js';
import { ALERT_MANAGER_KIND_VALUES } from '../alerts/index.js';
import { RULE_DATASET_SQL } from './dataset-filters.js';
import { ALERT_NOTIFICATION_KIND_VALUES, ALERT_NOTIFICATION_OUTCOME_VALUES, ALERT_RULE_SEVERITY_VALUES, ALERT_RULE_STATUS_VALUES } from './types.js';

export const alertRuleList = defineList(
  {
    type: 'AlertRule',
    plural: 'alert rules',
    table: 'alert_rules',
    invalidInputCode: 'ALERT_RULE_INVALID_INPUT',
    measures: {
      evaluationIntervalMs: { column: 'evaluation_interval_ms', kind: 'number', description: 'How often the rule is evaluated, in milliseconds.' },
      pendingForMs: { column: 'pending_for_ms', kind: 'number', description: 'How long the condition must hold before the rule fires, in milliseconds.' },
    },
  },
  {
    alertRuleId: uuidIdField('rule'),
    name: { column: 'name', kind: 'text', description: 'The rule name.', orderable: true },
    status: { column: 'status', kind: 'enum', enumType: 'AlertRuleStatus', enumValues: ALERT_RULE_STATUS_VALUES, description: 'Draft, Live or retired.', orderable: true, groupable: true },
    severity: { column: 'severity', kind: 'enum', enumType: 'AlertRuleSeverity', enumValues: ALERT_RULE_SEVERITY_VALUES, description: 'How severe its alerts are.', orderable: true, groupable: true },
    category: { column: 'category', kind: 'key', description: 'The rule category.', orderable: true, groupable: true },
    manager: { column: 'manager', kind: 'enum', enumType: 'AlertManagerKind', enumValues: ALERT_MANAGER_KIND_VALUES, description: 'The alert manager that holds it.', groupable: true },
    alertType: { column: "(context->>'alertType')", kind: 'key', nullable: true, description: "The client context's `alertType` (the console's CUSTOM or SYSTEM).", groupable: true },
    ...changeTimeFields('rule'),
  },
);

/** A dataset's rules (`Dataset.alertRulePage`): the rules whose dataset is the parent's id. */
export const ruleDatasetLink: ListLink = { parentKey: RULE_DATASET_SQL, keyType: 'text' };

/**
 * The notifications of a rule (`AlertRule.notificationPage`), a list that grows with every firing:
 * each field has an index of its own (migration 20261204036000_alert_notification_list_indexes), and
 * (rule_id, created_date) finds a rule's newest first. Only a rule's page is served, never the whole table.
 */
export const notificationList = defineList(
  {
    type: 'AlertNotification',
    plural: 'alert notifications',
    table: 'alert_notifications',
    invalidInputCode: 'ALERT_RULE_INVALID_INPUT',
    measures: {
      attempts: { column: 'attempts', kind: 'number', description: 'Delivery attempts made so far.' },
      deliveredAt: { column: 'delivered_date', kind: 'time', description: 'When it was delivered; none until then.' },
    },
  },
  {
    notificationId: uuidIdField('notification'),
    channelId: { column: 'channel_id', kind: 'key', uuid: true, description: 'The channel it was sent to (a UUID).', groupable: true },
    kind: { column: 'kind', kind: 'enum', enumType: 'AlertNotificationKind', enumValues: ALERT_NOTIFICATION_KIND_VALUES, description: 'Why it was sent.', groupable: true },
    outcome: { column: 'outcome', kind: 'enum', enumType: 'AlertNotificationOutcome', enumValues: ALERT_NOTIFICATION_OUTCOME_VALUES, description: 'What became of it.', groupable: true },
    transport: { column: 'transport', kind: 'key', nullable: true, description: 'How it went out (`smtp`, `outbox`, `webhook`); none until delivered.', groupable: true },
    evaluatedAt: { column: 'evaluated_at', kind: 'time', description: 'The evaluation that decided it.', orderable: true },
    createdAt: createdAtField('notification', 'decided'),
  },
);

/** A rule's notifications: those whose rule_id is the parent rule's id. */
export const notificationRuleLink: ListLink = { parentKey: 'rule_id', keyType: 'uuid' };
