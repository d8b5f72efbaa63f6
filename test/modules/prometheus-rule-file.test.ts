// The Live alert rules as a Prometheus rule file (GET /alerts/v1/rules/prometheus and the
// prometheusRules query): what the file holds for a few rules (drafts left out, quoting that no
// name or label can break, a category with two intervals split into two groups), that promtool
// accepts it, and, with the Debian packages prometheus and prometheus-alertmanager installed, that a
// real Prometheus loading it fires an always-true rule whose alert reaches a real Alertmanager.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type supertest from 'supertest';
import { parse } from 'yaml';
import { findBinary, startAlertmanager, type RunningAlertmanager } from '../support/alerting.js';
import { graphql } from '../support/api.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { startPrometheusWithRules, type RunningPrometheus } from '../support/prometheus.js';
import { describeWhenInstalled, IN_CI } from '../support/skip.js';

let gw: TestGateway;

beforeAll(async () => {
  // Nothing evaluates on its own: these rules are only exported.
  gw = await startTestGateway({ METRICS_SAMPLE_INTERVAL_SECONDS: '0', ALERT_EVALUATION_TICK_SECONDS: '0' });
});

afterAll(async () => {
  await gw?.stop();
});

async function ok(response: supertest.Response): Promise<Record<string, unknown>> {
  expect([response.status, response.body.error]).toEqual([200, undefined]);
  return response.body.result as Record<string, unknown>;
}

interface RuleOptions {
  name: string;
  category: string;
  metric: string;
  operator: string;
  threshold: number[];
  frequency: string;
  interval: string;
  severity?: string;
  description?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

async function createRule(options: RuleOptions, publish: boolean): Promise<string> {
  const { metric, operator, threshold, ...rest } = options;
  const body = { manager: 'embedded', ...rest, metadata: { queryBuilderContext: { metric, operator, threshold } } };
  const { id } = await ok(await gw.http.post('/alerts/v1/create').send(body));
  if (publish) await ok(await gw.http.get(`/alerts/v1/publish/${id as string}`));
  return id as string;
}

async function exported(query = ''): Promise<supertest.Response> {
  return gw.http.get(`/alerts/v1/rules/prometheus${query}`);
}

describe('the Prometheus rule file of the Live rules', () => {
  const ids: Record<string, string> = {};
  let file = '';

  beforeAll(async () => {
    // A name, labels and annotations full of what YAML would read as structure if written bare.
    ids.disk = await createRule(
      {
        name: 'disk "full": /var # 1',
        category: 'storage',
        severity: 'critical',
        description: 'Disk nearly full',
        metric: 'node_filesystem_avail_bytes{mountpoint="/"}',
        operator: 'lt',
        threshold: [1e9],
        frequency: '1m',
        interval: '5m',
        labels: { team: 'infra', note: 'a: b, [c] {d} - e' },
        annotations: { summary: "line 1\nline 2 'quoted' \\ end", runbook: '' },
      },
      true,
    );
    ids.failures = await createRule(
      { name: 'ingest failures', category: 'processing', metric: 'sum(rate(failed_total[5m]))', operator: 'within_range', threshold: [1, 10], frequency: '30s', interval: '0s' },
      true,
    );
    ids.lag = await createRule({ name: 'ingest lag', category: 'processing', metric: 'max(lag_seconds)', operator: 'gt', threshold: [60], frequency: '1m', interval: '2m' }, true);
    ids.draft = await createRule({ name: 'a draft', category: 'processing', metric: 'max(lag_seconds)', operator: 'gt', threshold: [1], frequency: '1m', interval: '1m' }, false);
    const response = await exported();
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/yaml/);
    file = response.text;
  });

  it('holds a group per category and interval, each Live rule with its expression, pending period, labels and annotations, and no draft', () => {
    expect(parse(file)).toEqual({
      groups: [
        {
          name: 'processing (every 30s)',
          interval: '30s',
          rules: [{ alert: 'ingest failures', expr: '((sum(rate(failed_total[5m]))) > 1) < 10', for: '0s', labels: { alertId: ids.failures, severity: 'warning' } }],
        },
        {
          name: 'processing (every 1m)',
          interval: '1m',
          rules: [{ alert: 'ingest lag', expr: '(max(lag_seconds)) > 60', for: '2m', labels: { alertId: ids.lag, severity: 'warning' } }],
        },
        {
          name: 'storage',
          interval: '1m',
          rules: [
            {
              alert: 'disk "full": /var # 1',
              expr: '(node_filesystem_avail_bytes{mountpoint="/"}) < 1000000000',
              for: '5m',
              labels: { team: 'infra', note: 'a: b, [c] {d} - e', alertId: ids.disk, severity: 'critical' },
              annotations: { summary: "line 1\nline 2 'quoted' \\ end", runbook: '', description: 'Disk nearly full' },
            },
          ],
        },
      ],
    });
    expect(file).not.toContain(ids.draft);
    // Every scalar is double-quoted: a key or value never reaches YAML bare.
    expect(file).toContain('      - alert: "disk \\"full\\": /var # 1"\n');
  });

  it('answers the same file to the prometheusRules query, and an empty file for a manager without Live rules', async () => {
    const answer = await graphql<{ prometheusRules: string }>(gw, 'query ($manager: AlertManagerKind) { prometheusRules(manager: $manager) }', { manager: 'EMBEDDED' });
    expect(answer.errors).toBeUndefined();
    expect(answer.data!.prometheusRules).toBe(file);
    const none = await exported('?manager=grafana');
    expect(none.status).toBe(200);
    expect(parse(none.text)).toEqual({ groups: [] });
  });

  it('refuses an unknown manager with the failure envelope', async () => {
    const response = await exported('?manager=nagios');
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('ALERT_RULE_INVALID_INPUT');
  });

  const promtool = findBinary('promtool');
  // In CI (.ci/run installs prometheus) a missing promtool fails rather than skips.
  (promtool || IN_CI ? it : it.skip)(`is accepted by promtool check rules${promtool ? '' : ' [skipped: promtool is not installed (Debian package prometheus)]'}`, async () => {
    if (!promtool) throw new Error('promtool missing in CI (GATEWAY_CI=1): .ci/run installs the Debian package prometheus');
    const dir = await mkdtemp(path.join(os.tmpdir(), 'gateway-rule-file-'));
    try {
      await writeFile(path.join(dir, 'rules.yml'), file);
      const { stdout } = await promisify(execFile)(promtool, ['check', 'rules', path.join(dir, 'rules.yml')]);
      expect(stdout).toContain('SUCCESS: 3 rules found');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

const prometheusBinary = findBinary('prometheus');
const alertmanagerBinary = findBinary('prometheus-alertmanager');

describeWhenInstalled(prometheusBinary && alertmanagerBinary, 'prometheus prometheus-alertmanager')('a real Prometheus loading the exported file', () => {
  let alertmanager: RunningAlertmanager | undefined;
  let prometheus: RunningPrometheus | undefined;

  afterAll(async () => {
    await prometheus?.stop();
    await alertmanager?.stop();
  });

  it('fires an always-true rule, whose alert reaches Alertmanager with its alertId (waiting at most 90 seconds)', async () => {
    const id = await createRule({ name: 'always firing', category: 'integration', metric: 'vector(1)', operator: 'gt', threshold: [0], frequency: '10s', interval: '0s' }, true);
    const response = await exported('?manager=embedded');
    alertmanager = await startAlertmanager(alertmanagerBinary!);
    prometheus = await startPrometheusWithRules(prometheusBinary!, response.text, alertmanager.url);

    // Evaluated every 10 s from a moment Prometheus picks, then sent on; a loaded machine (the whole
    // suite on two cores) has needed more than 30 s for the daemons to start and get there.
    const deadline = Date.now() + 90_000;
    let alerts: { labels: Record<string, string> }[] = [];
    while (Date.now() < deadline) {
      alerts = (await (await fetch(`${alertmanager.url}/api/v2/alerts`)).json()) as typeof alerts;
      if (alerts.some((alert) => alert.labels.alertId === id)) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(alerts.find((alert) => alert.labels.alertId === id)?.labels).toEqual({ alertname: 'always firing', alertId: id, severity: 'warning' });
  }, 150_000);
});
