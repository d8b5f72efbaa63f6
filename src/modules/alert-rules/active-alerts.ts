// A Live rule's alerts as users see them: each series the condition held for at the last evaluation,
// pending while the rule is pending and alerting once it fires (Grafana's words), active since the
// condition started holding. One derivation for GraphQL's ActiveAlert, the REST rule's
// `alertData.alerts` (read from GraphQL) and the Grafana-shaped rules answer.
import type { ActiveAlertView, RuleEvaluation } from './types.js';

/** The alerts of a rule's evaluation; none while the rule is inactive. */
export function activeAlerts(evaluation: RuleEvaluation | null | undefined): ActiveAlertView[] {
  if (!evaluation || evaluation.state === 'inactive') return [];
  const state = evaluation.state === 'firing' ? 'Alerting' : 'Pending';
  return evaluation.alerts.map((alert) => ({ ...alert, state, activeSince: evaluation.activeSince }));
}
