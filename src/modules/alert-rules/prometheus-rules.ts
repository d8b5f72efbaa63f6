// Live rules as a Prometheus rule file, for those who run their rules in Prometheus and send the
// alerts to Alertmanager: one group per category, evaluated on the rules' interval, each rule with
// the condition the embedded evaluator runs, its pending period, its labels (with `alertId`, what
// silences match, and `severity`) and annotations.
//
// The YAML is written here, not by a library (the `yaml` package is only a dev dependency): every
// key and value is a double-quoted scalar written as a JSON string, which YAML reads as the same
// text, once the characters YAML treats as breaks or forbids unescaped (DEL, C1 controls, U+2028,
// U+2029, BOM) are escaped too. So no name, label or expression can change the file's structure.
import { formatDuration } from '../../platform/promql/parser.js';
import { alertAnnotations, alertLabels } from './rules.js';
import type { AlertRuleRecord } from './types.js';

/** A YAML double-quoted scalar holding exactly `text`. */
export function yamlString(text: string): string {
  return JSON.stringify(text).replace(/[\u007f-\u009f\u2028\u2029\ufeff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function yamlMap(indent: string, map: Record<string, string>): string[] {
  return Object.entries(map).map(([key, value]) => `${indent}${yamlString(key)}: ${yamlString(value)}`);
}

/**
 * The file. A Prometheus group has one interval, so a category whose rules have several intervals
 * becomes one group per interval, named `<category> (every <interval>)`; group names stay unique.
 * Rules are given sorted by category, then name; the file keeps that order.
 */
export function prometheusRuleFile(rules: readonly AlertRuleRecord[]): string {
  const groups = new Map<string, { category: string; intervalMs: number; rules: AlertRuleRecord[] }>();
  for (const rule of rules) {
    const key = JSON.stringify([rule.category, rule.evaluationIntervalMs]);
    const group = groups.get(key) ?? { category: rule.category, intervalMs: rule.evaluationIntervalMs, rules: [] };
    group.rules.push(rule);
    groups.set(key, group);
  }
  const intervalsOf = new Map<string, number>();
  for (const group of groups.values()) intervalsOf.set(group.category, (intervalsOf.get(group.category) ?? 0) + 1);

  const lines = ['# Alert rules of the data-platform gateway (its Live rules), as a Prometheus rule file.', 'groups:'];
  if (groups.size === 0) lines[1] = 'groups: []';
  for (const group of groups.values()) {
    const interval = formatDuration(group.intervalMs);
    const name = intervalsOf.get(group.category) === 1 ? group.category : `${group.category} (every ${interval})`;
    lines.push(`  - name: ${yamlString(name)}`, `    interval: ${yamlString(interval)}`, '    rules:');
    for (const rule of group.rules) {
      const annotations = alertAnnotations(rule);
      lines.push(
        `      - alert: ${yamlString(rule.name)}`,
        `        expr: ${yamlString(rule.expression)}`,
        `        for: ${yamlString(formatDuration(rule.pendingForMs))}`,
        '        labels:',
        ...yamlMap('          ', alertLabels(rule)),
      );
      if (Object.keys(annotations).length > 0) lines.push('        annotations:', ...yamlMap('          ', annotations));
    }
  }
  return `${lines.join('\n')}\n`;
}
