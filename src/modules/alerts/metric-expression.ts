// A PromQL check for metric aliases. The original stored any text as a metric and learnt it was
// wrong only when an alert rule built on it failed inside Grafana; here an alias's `metric` must
// parse as PromQL and evaluate to an instant vector or a scalar (what an alert rule compares
// against a threshold).
import { parsePromQL, TYPE_NAMES } from '../../platform/promql/parser.js';

/** Why `expression` is not a PromQL expression an alert can use, or undefined when it is one. */
export function checkMetricExpression(expression: string): string | undefined {
  if (expression.trim() === '') return 'the metric expression is empty';
  const parsed = parsePromQL(expression);
  if (parsed.problem !== undefined) return `the metric expression is not valid PromQL: ${parsed.problem}`;
  // Prometheus parses a range vector or a string too, but an alert rule cannot compare it with a threshold.
  if (parsed.type !== 'vector' && parsed.type !== 'scalar') return `the metric expression must evaluate to an instant vector or a scalar, not a ${TYPE_NAMES[parsed.type]}`;
  return undefined;
}
