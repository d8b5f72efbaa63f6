// What a dataset list may filter by through the alert rules about each dataset (`Dataset.alertRulePage`'s
// link): the severities of its rules and the states the evaluator holds for them. Each is an array
// computed per dataset from this module's tables (the rule-dataset expression index finds a dataset's
// rules), so no index finds the datasets: every comparison is priced as a scan (src/platform/lists/comparisons.ts).
import type { ListField } from '../../platform/lists/declaration.js';
import { alertRulesFieldPermissions } from './permissions.js';
import { ALERT_RULE_SEVERITY_VALUES, ALERT_RULE_STATE_VALUES } from './types.js';

/** Filtering datasets by their rules tells of the rules: only for a caller who may list them. */
const RULE_READERS = alertRulesFieldPermissions['Query.alertRules']!;

/**
 * The dataset a rule is about, in SQL: its `dataset` label, else a text `datasetId` in its context
 * (datasetOfRule's rule). Migration 20261203036100_alert_rule_dataset_index indexes this very expression.
 */
export const RULE_DATASET_SQL = `COALESCE(NULLIF(labels->>'dataset', ''), CASE WHEN jsonb_typeof(context->'datasetId') = 'string' THEN NULLIF(context->>'datasetId', '') END)`;

/** The rules about the row of `datasets` the list is reading, as the FROM and WHERE of a subquery. */
const RULES_OF_DATASET = `FROM alert_rules WHERE ${RULE_DATASET_SQL} = "datasets"."dataset_id"`;

export const datasetAlertFields: Readonly<Record<string, ListField>> = {
  alertSeverities: {
    column: `ARRAY(SELECT severity::text ${RULES_OF_DATASET} AND status <> 'retired')`,
    kind: 'set',
    enumType: 'AlertRuleSeverity',
    enumValues: ALERT_RULE_SEVERITY_VALUES,
    scan: true,
    reads: { apiIds: RULE_READERS, tables: ['alert_rules'] },
    description: 'The severities of the alert rules about the dataset (Draft and Live rules).',
  },
  alertStates: {
    column: `ARRAY(SELECT COALESCE((SELECT state FROM alert_rule_states WHERE rule_id = alert_rules.id), 'inactive')::text ${RULES_OF_DATASET} AND status = 'live')`,
    kind: 'set',
    enumType: 'AlertRuleState',
    enumValues: ALERT_RULE_STATE_VALUES,
    scan: true,
    // The evaluator's states are announced by no change: figures.
    reads: { apiIds: RULE_READERS, tables: ['alert_rules'], figures: true },
    description: 'Where the Live alert rules about the dataset stand in the evaluator (INACTIVE, PENDING, FIRING).',
  },
};
