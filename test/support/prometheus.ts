// A real Prometheus (Debian package prometheus) loaded with given samples, to compare the embedded
// PromQL evaluator with: promtool turns the samples (OpenMetrics text) into TSDB blocks, and
// Prometheus serves them with no scrape targets. Or a Prometheus evaluating a rule file and sending
// its alerts to an Alertmanager.
import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { findFreePort } from '../../src/platform/database/embedded.js';
import type { StoredSeries } from '../../src/platform/promql/evaluator.js';
import { spawnUntilReady } from './alerting.js';

export interface RunningPrometheus {
  url: string;
  stop(): Promise<void>;
}

function openMetrics(series: readonly StoredSeries[]): string {
  const lines: string[] = [];
  for (const s of series) {
    const { __name__: name, ...labels } = s.labels;
    const text = Object.entries(labels)
      .map(([key, value]) => `${key}=${JSON.stringify(value)}`)
      .join(',');
    Array.from(s.times).forEach((t, i) => lines.push(`${name}{${text}} ${s.values[i]} ${t / 1000}`));
  }
  return `${lines.join('\n')}\n# EOF\n`;
}

export async function startPrometheusWith(prometheus: string, promtool: string, series: readonly StoredSeries[]): Promise<RunningPrometheus> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'gateway-prom-'));
  const data = path.join(dir, 'data');
  await writeFile(path.join(dir, 'samples.om'), openMetrics(series));
  await promisify(execFile)(promtool, ['tsdb', 'create-blocks-from', 'openmetrics', path.join(dir, 'samples.om'), data]);
  await writeFile(path.join(dir, 'prometheus.yml'), 'global:\n  scrape_interval: 15s\n');
  const port = await findFreePort();
  const args = [`--config.file=${path.join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${data}`, `--web.listen-address=127.0.0.1:${port}`, '--storage.tsdb.retention.time=100y'];
  return spawnUntilReady('Prometheus', prometheus, args, { port, dir, timeoutMs: 30_000 });
}

/**
 * A Prometheus evaluating `ruleFile` (its text) and sending the alerts to `alertmanagerUrl`, with no
 * scrape targets. The global evaluation interval is 1s; a group's own `interval` overrides it.
 */
export async function startPrometheusWithRules(prometheus: string, ruleFile: string, alertmanagerUrl: string): Promise<RunningPrometheus> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'gateway-prom-rules-'));
  await writeFile(path.join(dir, 'rules.yml'), ruleFile);
  const alertmanager = new URL(alertmanagerUrl);
  await writeFile(
    path.join(dir, 'prometheus.yml'),
    [
      'global:',
      '  scrape_interval: 15s',
      '  evaluation_interval: 1s',
      'rule_files:',
      `  - ${JSON.stringify(path.join(dir, 'rules.yml'))}`,
      'alerting:',
      '  alertmanagers:',
      '    - static_configs:',
      `        - targets: [${JSON.stringify(alertmanager.host)}]`,
      '',
    ].join('\n'),
  );
  const port = await findFreePort();
  // An alert sent before service discovery has handed the notifier its Alertmanager (it does so at
  // most every 5 s) is dropped, and by default sent again only a minute later: resent at the next
  // evaluation instead.
  const args = [`--config.file=${path.join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${path.join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--rules.alert.resend-delay=1s'];
  return spawnUntilReady('Prometheus', prometheus, args, { port, dir, timeoutMs: 30_000 });
}

/** An empty Prometheus (no samples, no scrape targets), for what must run against the real query API. */
export async function startEmptyPrometheus(prometheus: string): Promise<RunningPrometheus> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'gateway-prom-empty-'));
  await writeFile(path.join(dir, 'prometheus.yml'), 'global:\n  scrape_interval: 15s\n');
  const port = await findFreePort();
  const args = [`--config.file=${path.join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${path.join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`];
  return spawnUntilReady('Prometheus', prometheus, args, { port, dir, timeoutMs: 30_000 });
}
