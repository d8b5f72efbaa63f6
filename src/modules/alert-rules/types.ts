// Domain types of alert rules: what a rule is, how it is written, and where the embedded evaluator
// found it. Shared by the service, the store, the evaluator and the GraphQL mappers.
import type { Actor } from '../../auth/actor.js';
import type { ListArguments, ListPage } from '../../platform/lists/list-query.js';
import type { ManagerKind, SilenceRecord } from '../alerts/index.js';

export type { Actor };

export const RULE_STATUSES = ['draft', 'live', 'retired'] as const;
export type RuleStatus = (typeof RULE_STATUSES)[number];

/** How the metric's value is compared: above one threshold, below it, or inside/outside two. */
export const RULE_OPERATORS = ['gt', 'lt', 'within_range', 'outside_range'] as const;
export type RuleOperator = (typeof RULE_OPERATORS)[number];

export const RULE_SEVERITIES = ['warning', 'critical'] as const;
export type RuleSeverity = (typeof RULE_SEVERITIES)[number];

/** Where a Live rule stands: condition false, true for less than its pending period, or firing. */
export const RULE_STATES = ['inactive', 'pending', 'firing'] as const;
export type RuleState = (typeof RULE_STATES)[number];

/** Fields a search may order by (the original's `options.order` names). */
export const RULE_ORDER_FIELDS = ['createdAt', 'updatedAt', 'name', 'status', 'severity', 'category'] as const;
export type RuleOrderField = (typeof RULE_ORDER_FIELDS)[number];

export type JsonObject = Record<string, unknown>;
export type StringMap = Record<string, string>;

export interface AlertRuleRecord {
  id: string;
  name: string;
  manager: ManagerKind;
  status: RuleStatus;
  description: string;
  /** The PromQL whose value is compared (a metric alias's expression, or written by hand). */
  metric: string;
  operator: RuleOperator;
  /** One threshold for gt/lt, two (low, high) for the ranges. */
  thresholds: number[];
  /** The whole condition as PromQL: what Prometheus and the embedded evaluator run. */
  expression: string;
  severity: RuleSeverity;
  category: string;
  evaluationIntervalMs: number;
  /** How long the condition must hold before the rule fires (the original's `interval`, Prometheus's `for`). */
  pendingForMs: number;
  labels: StringMap;
  annotations: StringMap;
  /** What the console keeps with the rule (`queryBuilderContext`), returned as it was given. */
  metadata: JsonObject;
  /** The notification channels to notify (the original's `notification.channels`). */
  channelIds: string[];
  /** The console's context, e.g. `{alertType: "CUSTOM"}`. */
  context: JsonObject;
  createdBy: string;
  updatedBy: string;
  createdDate: Date;
  updatedDate: Date;
}

/** A rule as written by a caller; the service checks every field. */
export interface AlertRuleInput {
  name: string;
  manager?: string | null;
  description?: string | null;
  category: string;
  severity?: string | null;
  /** A duration (`1m`, `30s`): how often the rule is evaluated. */
  evaluationInterval?: string | null;
  /** A duration: how long the condition must hold before firing (`0s`: at once). */
  pendingPeriod?: string | null;
  /** PromQL; or give `metricAlias` and the alias's expression is used. */
  metric?: string | null;
  metricAlias?: string | null;
  operator: string;
  thresholds: number[];
  labels?: unknown;
  annotations?: unknown;
  metadata?: unknown;
  channelIds?: string[] | null;
  context?: unknown;
}

export type AlertRuleChanges = Partial<AlertRuleInput>;

export interface AlertRuleFilter {
  status?: string[] | null;
  id?: string | null;
  name?: string | null;
  category?: string | null;
  severity?: string | null;
  manager?: string | null;
  /** The console's `context.alertType` (CUSTOM or SYSTEM). */
  alertType?: string | null;
}

export interface RuleOrder {
  field: RuleOrderField;
  direction: 'asc' | 'desc';
}

/** An alert-rule search: the list contract's arguments, and the older filter (its fields must all match too). */
export interface AlertRuleQuery extends ListArguments {
  filter?: AlertRuleFilter | null;
}

/** One series the condition held for at the last evaluation. */
export interface ActiveAlert {
  labels: StringMap;
  value: number;
}

/** One series of a Live rule as its alert, in Grafana's words: pending while the rule is, alerting once it fires. */
export type ActiveAlertState = (typeof ACTIVE_ALERT_STATE_VALUES)[keyof typeof ACTIVE_ALERT_STATE_VALUES];

/** An alert of a rule's last evaluation with the state and start it takes from the rule (activeAlerts). */
export interface ActiveAlertView extends ActiveAlert {
  state: ActiveAlertState;
  /** Since when the rule's condition has held. */
  activeSince: Date | null;
}

/** Where the embedded evaluator found a Live rule. */
export interface RuleEvaluation {
  state: RuleState;
  /** Since when the condition has held (pending or firing). */
  activeSince: Date | null;
  firingSince: Date | null;
  lastEvaluatedAt: Date | null;
  nextEvaluationAt: Date;
  lastError: string | null;
  alerts: ActiveAlert[];
}

/** A rule with what search and get show beside it: its evaluation and its silence. */
export interface AlertRuleView extends AlertRuleRecord {
  /** Absent when the rule was reached through a link: the field then loads it, batched, only when asked. */
  evaluation?: RuleEvaluation | null;
  silence?: SilenceRecord | null;
}

export type AlertRulePage = ListPage<AlertRuleView>;

/** A page of a rule's notifications (`AlertRule.notificationPage`). */
export type AlertNotificationPage = ListPage<AlertNotificationRecord>;

export const NOTIFICATION_KINDS = ['firing', 'repeat', 'resolved'] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/** `pending` until a gateway delivered it; `silenced` when a silence covered the rule. */
export const NOTIFICATION_OUTCOMES = ['pending', 'sent', 'failed', 'silenced'] as const;
export type NotificationOutcome = (typeof NOTIFICATION_OUTCOMES)[number];

export interface AlertNotificationRecord {
  id: string;
  ruleId: string;
  channelId: string;
  kind: NotificationKind;
  evaluatedAt: Date;
  outcome: NotificationOutcome;
  subject: string;
  text: string;
  transport: string | null;
  response: string | null;
  attempts: number;
  createdDate: Date;
  deliveredDate: Date | null;
}

/** GraphQL's enum values and what this domain calls each (resolvers, codegen and REST all read these). */
export const ALERT_RULE_STATUS_VALUES = { DRAFT: 'draft', LIVE: 'live', RETIRED: 'retired' } as const;
export const ALERT_RULE_OPERATOR_VALUES = { GT: 'gt', LT: 'lt', WITHIN_RANGE: 'within_range', OUTSIDE_RANGE: 'outside_range' } as const;
export const ALERT_RULE_SEVERITY_VALUES = { WARNING: 'warning', CRITICAL: 'critical' } as const;
export const ALERT_RULE_STATE_VALUES = { INACTIVE: 'inactive', PENDING: 'pending', FIRING: 'firing' } as const;
export const ACTIVE_ALERT_STATE_VALUES = { PENDING: 'Pending', ALERTING: 'Alerting' } as const;
export const ALERT_RULE_ORDER_FIELD_VALUES = {
  CREATED_AT: 'createdAt',
  UPDATED_AT: 'updatedAt',
  NAME: 'name',
  STATUS: 'status',
  SEVERITY: 'severity',
  CATEGORY: 'category',
} as const;
export const ALERT_NOTIFICATION_KIND_VALUES = { FIRING: 'firing', REPEAT: 'repeat', RESOLVED: 'resolved' } as const;
export const ALERT_NOTIFICATION_OUTCOME_VALUES = { PENDING: 'pending', SENT: 'sent', FAILED: 'failed', SILENCED: 'silenced' } as const;
