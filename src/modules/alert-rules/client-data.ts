// What a client keeps with a rule (the console's `metadata.queryBuilderContext` and `context`), read
// as typed shapes: the keys the console's form writes and the gateway reads, each of its own type. A
// value of another type than the form writes reads as null (never a failure: it is the client's data).
import { ALERT_RULE_OPERATOR_VALUES, type AlertRuleView } from './types.js';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** A threshold as the console writes it (a number, a numeric string, or a list of them), as numbers. */
function thresholds(value: unknown): number[] {
  const list: unknown[] = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
  return list.map((item: unknown) => (typeof item === 'string' && item.trim() !== '' ? Number(item) : item)).filter((item): item is number => typeof item === 'number' && Number.isFinite(item));
}

const OPERATORS = new Set<string>(Object.values(ALERT_RULE_OPERATOR_VALUES));

export interface QueryBuilderCondition {
  category: string | null;
  subComponent: string | null;
  metric: string | null;
  metricAlias: string | null;
  metricAliasId: string | null;
  operator: (typeof ALERT_RULE_OPERATOR_VALUES)[keyof typeof ALERT_RULE_OPERATOR_VALUES] | null;
  thresholds: number[];
}

/** The console's query builder condition (`metadata.queryBuilderContext`); null when the rule has none. */
export function queryBuilderOf(rule: Pick<AlertRuleView, 'metadata'>): QueryBuilderCondition | null {
  const context = rule.metadata.queryBuilderContext;
  if (!isObject(context)) return null;
  const operator = text(context.operator);
  return {
    category: text(context.category),
    subComponent: text(context.subComponent),
    metric: text(context.metric),
    metricAlias: text(context.metricAlias),
    metricAliasId: text(context.id),
    operator: operator !== null && OPERATORS.has(operator) ? (operator as QueryBuilderCondition['operator']) : null,
    thresholds: thresholds(context.threshold),
  };
}

/** The keys of a rule's client context that the gateway reads. */
export function clientContextOf(rule: Pick<AlertRuleView, 'context'>): { alertType: string | null; datasetId: string | null } {
  return { alertType: text(rule.context.alertType), datasetId: text(rule.context.datasetId) };
}
