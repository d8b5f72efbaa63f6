// The alert-rules module as code outside src/modules/alert-rules/ sees it: import it from here, never from one of its files.
// Declarations (types, lists, permissions) first: the GraphQL layer's registries read them at load time, possibly
// while another file of this module is still loading (an import cycle through src/graphql).
export {
  ACTIVE_ALERT_STATE_VALUES,
  type ActiveAlertView,
  ALERT_NOTIFICATION_KIND_VALUES,
  ALERT_NOTIFICATION_OUTCOME_VALUES,
  ALERT_RULE_OPERATOR_VALUES,
  ALERT_RULE_ORDER_FIELD_VALUES,
  ALERT_RULE_SEVERITY_VALUES,
  ALERT_RULE_STATE_VALUES,
  ALERT_RULE_STATUS_VALUES,
  type AlertNotificationPage,
  type AlertNotificationRecord,
  type AlertRulePage,
  type AlertRuleView,
  type RuleEvaluation,
} from './types.js';
export { alertRuleList, notificationList, notificationRuleLink, ruleDatasetLink } from './list.js';
export { datasetAlertFields } from './dataset-filters.js';
export { alertRuleFieldReads, alertRulesFieldPermissions, alertRulesPublishedReads } from './permissions.js';
export { AlertEvaluator } from './evaluator.js';
export { grafanaRulesAnswer } from './grafana-rules-answer.js';
export { createAlertRuleStore } from './store.js';
export { type AlertRuleService, createAlertRuleService, type RulesAboutDataset } from './service.js';
export { alertRuleResolvers } from './resolvers.js';
