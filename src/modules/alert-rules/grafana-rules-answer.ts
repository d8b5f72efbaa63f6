// The embedded evaluator's rules in the shape of Grafana's Prometheus-compatible rules API
// (GET /api/prometheus/grafana/api/v1/rules): groups (one per category, as rules published to
// Grafana are grouped), each rule with its state (inactive, pending, firing), health and the
// series it holds for as alerts, in Grafana's words (Pending, Alerting). The console's alerts bell
// reads `data.groups[].rules[]`, keeps firing rules, and shows each alert's `annotations.summary`
// (or `description`) with its `activeAt`: every alert carries a summary so none shows up blank.
import { formatValue } from '../../platform/json/prometheus-value.js';
import { activeAlerts } from './active-alerts.js';
import { alertAnnotations, alertLabels } from './rules.js';
import type { AlertRuleView, RuleState, StringMap } from './types.js';

/** Grafana writes a time never reached as Go's zero time. */
const NEVER = '0001-01-01T00:00:00Z';

export interface GrafanaAlert {
  labels: StringMap;
  annotations: StringMap;
  state: 'Pending' | 'Alerting';
  activeAt: string;
  value: string;
}

export interface GrafanaRule {
  uid: string;
  name: string;
  folderUid: string;
  query: string;
  duration: number;
  labels: StringMap;
  annotations: StringMap;
  health: 'ok' | 'error' | 'unknown';
  lastError: string;
  type: 'alerting';
  state: RuleState;
  alerts: GrafanaAlert[];
  totals: Record<string, number>;
  lastEvaluation: string;
  evaluationTime: number;
}

export interface GrafanaRuleGroup {
  name: string;
  file: string;
  folderUid: string;
  interval: number;
  rules: GrafanaRule[];
  totals: Record<string, number>;
  lastEvaluation: string;
  evaluationTime: number;
}

const iso = (date: Date | null | undefined): string => (date ? date.toISOString() : NEVER);

function seriesText(labels: StringMap): string {
  const entries = Object.entries(labels);
  return entries.length === 0 ? '' : ` {${entries.map(([name, value]) => `${name}="${value}"`).join(', ')}}`;
}

function grafanaRule(rule: AlertRuleView): GrafanaRule {
  const evaluation = rule.evaluation;
  const state = evaluation?.state ?? 'inactive';
  const annotations = alertAnnotations(rule);
  const labels = alertLabels(rule);
  const alerts = activeAlerts(evaluation).map((alert): GrafanaAlert => {
    const value = formatValue(alert.value);
    return {
      labels: { ...alert.labels, ...labels, alertname: rule.name, grafana_folder: rule.category },
      annotations: { summary: `${rule.name} is ${state}: ${rule.metric}${seriesText(alert.labels)} = ${value}`, ...annotations },
      state: alert.state,
      activeAt: iso(alert.activeSince),
      value,
    };
  });
  const lastError = evaluation?.lastError ?? '';
  return {
    uid: rule.id,
    name: rule.name,
    folderUid: rule.category,
    query: rule.expression,
    duration: rule.pendingForMs / 1000,
    labels,
    annotations,
    health: lastError ? 'error' : evaluation?.lastEvaluatedAt ? 'ok' : 'unknown',
    lastError,
    type: 'alerting',
    state,
    alerts,
    totals: alerts.length > 0 ? { [state === 'firing' ? 'alerting' : 'pending']: alerts.length } : {},
    lastEvaluation: iso(evaluation?.lastEvaluatedAt),
    evaluationTime: 0,
  };
}

function countStates(rules: readonly GrafanaRule[]): Record<string, number> {
  const totals: Record<string, number> = {};
  for (const rule of rules) {
    totals[rule.state] = (totals[rule.state] ?? 0) + 1;
    if (rule.health === 'error') totals.error = (totals.error ?? 0) + 1;
  }
  return totals;
}

/** Grafana's answer for these rules (given in category order): `{status, data: {groups, totals}}`. */
export function grafanaRulesAnswer(rules: readonly AlertRuleView[]): { status: 'success'; data: { groups: GrafanaRuleGroup[]; totals: Record<string, number> } } {
  const groups = new Map<string, { views: AlertRuleView[]; rules: GrafanaRule[] }>();
  for (const view of rules) {
    const group = groups.get(view.category) ?? { views: [], rules: [] };
    group.views.push(view);
    group.rules.push(grafanaRule(view));
    groups.set(view.category, group);
  }
  const answered = [...groups].map(([category, group]): GrafanaRuleGroup => {
    const evaluated = group.views.map((view) => view.evaluation?.lastEvaluatedAt?.getTime() ?? 0);
    const last = Math.max(0, ...evaluated);
    return {
      name: category,
      file: category,
      folderUid: category,
      // Grafana's group has one interval; a category whose rules differ shows its shortest.
      interval: Math.min(...group.views.map((view) => view.evaluationIntervalMs)) / 1000,
      rules: group.rules,
      totals: countStates(group.rules),
      lastEvaluation: last > 0 ? new Date(last).toISOString() : NEVER,
      evaluationTime: 0,
    };
  });
  return { status: 'success', data: { groups: answered, totals: countStates(answered.flatMap((group) => group.rules)) } };
}
