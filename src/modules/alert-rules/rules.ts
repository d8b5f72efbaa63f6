// The rules an alert rule's fields must keep, as functions returning the reason a value is refused
// (or the value made whole). The service turns reasons into errors, the same for both transports.
import { durationMs, formatDuration, parsePromQL } from '../../platform/promql/parser.js';
import { checkName } from '../alerts/index.js';
import { RULE_OPERATORS, RULE_SEVERITIES, RULE_STATUSES, type AlertRuleRecord, type RuleOperator, type RuleSeverity, type RuleStatus, type StringMap } from './types.js';

export const RULE_NAME_MAX_LENGTH = 200;
export const CATEGORY_MAX_LENGTH = 100;
/** The console's `context.alertType` a search filters by (CUSTOM, SYSTEM). */
export const ALERT_TYPE_MAX_LENGTH = 100;
export const DESCRIPTION_MAX_LENGTH = 2_000;
export const LABELS_MAX = 50;
export const LABEL_VALUE_MAX_LENGTH = 1_000;
export const CHANNELS_MAX = 20;
export const MIN_EVALUATION_INTERVAL_MS = 10_000;
export const MAX_DURATION_MS = 86_400_000;
export const DEFAULT_EVALUATION_INTERVAL = '1m';
export const DEFAULT_PENDING_PERIOD = '1m';

// Prometheus's label names; `__`-prefixed ones are reserved for Prometheus itself.
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
// A Prometheus duration: one or more amount+unit pieces, largest unit first (`1h30m`, `90s`, `0s`).
const DURATION = /^(?:\d+y)?(?:\d+w)?(?:\d+d)?(?:\d+h)?(?:\d+m)?(?:\d+s)?(?:\d+ms)?$/;

export function isRuleStatus(value: string): value is RuleStatus {
  return (RULE_STATUSES as readonly string[]).includes(value);
}

export function isRuleOperator(value: string): value is RuleOperator {
  return (RULE_OPERATORS as readonly string[]).includes(value);
}

export function isRuleSeverity(value: string): value is RuleSeverity {
  return (RULE_SEVERITIES as readonly string[]).includes(value);
}

/** `1m` → 60,000; a reason when the text is not a duration within [min, max]. */
export function parseDuration(what: string, text: string, minMs: number): { ms: number } | { problem: string } {
  const trimmed = text.trim();
  if (trimmed === '' || !DURATION.test(trimmed)) return { problem: `${what} must be a duration such as 30s, 1m or 1h30m (got ${JSON.stringify(text.slice(0, 40))})` };
  const ms = durationMs(trimmed);
  if (ms < minMs) return { problem: `${what} must be at least ${formatDuration(minMs)} (got ${trimmed})` };
  if (ms > MAX_DURATION_MS) return { problem: `${what} must be at most ${formatDuration(MAX_DURATION_MS)} (got ${trimmed})` };
  return { ms };
}

/** The thresholds an operator takes: one for gt/lt, a low and a high for the ranges. */
export function checkThresholds(operator: RuleOperator, thresholds: readonly number[]): string | undefined {
  const ranged = operator === 'within_range' || operator === 'outside_range';
  const wanted = ranged ? 2 : 1;
  if (thresholds.length !== wanted) return `operator ${operator} takes ${wanted === 1 ? 'one threshold' : 'two thresholds (low, high)'}; got ${thresholds.length}`;
  if (thresholds.some((value) => typeof value !== 'number' || !Number.isFinite(value))) return 'thresholds must be finite numbers';
  if (ranged && !(thresholds[0]! < thresholds[1]!)) return `the low threshold (${thresholds[0]}) must be below the high one (${thresholds[1]})`;
  return undefined;
}

/**
 * The rule's condition as one PromQL expression: the series for which it holds, with the metric's
 * value. A scalar metric is made a one-series vector, since Prometheus compares scalars only with `bool`.
 */
export function conditionExpression(metric: string, operator: RuleOperator, thresholds: readonly number[]): string {
  const parsed = parsePromQL(metric);
  const m = parsed.type === 'scalar' ? `vector(${metric.trim()})` : `(${metric.trim()})`;
  const [low, high] = thresholds.map(String) as [string, string | undefined];
  switch (operator) {
    case 'gt':
      return `${m} > ${low}`;
    case 'lt':
      return `${m} < ${low}`;
    case 'within_range':
      return `(${m} > ${low}) < ${high}`;
    case 'outside_range':
      return `${m} < ${low} or ${m} > ${high}`;
  }
}

/** Labels or annotations: at most LABELS_MAX string values under Prometheus label names. */
export function checkStringMap(what: string, value: unknown): { map: StringMap } | { problem: string } {
  if (value === undefined || value === null) return { map: {} };
  if (typeof value !== 'object' || Array.isArray(value)) return { problem: `${what} must be an object of names to text values` };
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > LABELS_MAX) return { problem: `${what} may hold at most ${LABELS_MAX} entries` };
  const map: StringMap = {};
  for (const [name, text] of entries) {
    if (!LABEL_NAME.test(name) || name.startsWith('__'))
      return { problem: `${what}: ${JSON.stringify(name.slice(0, 60))} is not a label name (letters, digits and _, not starting with a digit or __)` };
    // The console sends numbers and booleans for some labels; they are kept as their text.
    if (typeof text !== 'string' && typeof text !== 'number' && typeof text !== 'boolean') return { problem: `${what}.${name} must be text` };
    const stringValue = String(text);
    if (stringValue.length > LABEL_VALUE_MAX_LENGTH) return { problem: `${what}.${name} must be at most ${LABEL_VALUE_MAX_LENGTH} characters` };
    map[name] = stringValue;
  }
  return { map };
}

/** A description: free text over several lines, within its length (other control characters refused). */
export function checkDescription(value: string): string | undefined {
  if (value.trim() === '') return undefined;
  return checkName('description', value.replace(/[\n\r\t]/g, ' '), DESCRIPTION_MAX_LENGTH);
}

/** The labels of a rule's alerts, wherever it is evaluated: its own, `alertId` (what silences match) and `severity`. */
export function alertLabels(rule: Pick<AlertRuleRecord, 'id' | 'labels' | 'severity'>): StringMap {
  return { ...rule.labels, alertId: rule.id, severity: rule.severity };
}

/** The annotations of a rule's alerts: its own and its description. */
export function alertAnnotations(rule: Pick<AlertRuleRecord, 'annotations' | 'description'>): StringMap {
  return { ...rule.annotations, ...(rule.description ? { description: rule.description } : {}) };
}
