// Grafana's Prometheus-compatible rules API at its own path, answered from the embedded evaluator:
// a rule goes inactive → pending → firing → resolved (time injected, never slept) and the answer
// follows, in the shape the console's alerts bell reads (data.groups[].rules[] with state, health,
// alerts[] carrying labels, annotations.summary, activeAt).
import { describe, expect, it } from '@jest/globals';
import type supertest from 'supertest';
import { envelope } from '../support/api.js';
import { apiKey, JWT_ENV } from '../support/auth.js';
import { seedDataset, type Json } from '../support/datasets.js';
import { startTestGateway, useForFile } from '../support/gateway.js';
import { unique } from '../support/ingestion.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const RULES = '/api/prometheus/grafana/api/v1/rules';

const gw = useForFile(() => startTestGateway({ ALERT_EVALUATION_TICK_SECONDS: '0' }));

async function ok(response: supertest.Response): Promise<Json> {
  expect([response.status, response.body.error]).toEqual([200, undefined]);
  return response.body.result as Json;
}

/** The rule named `name` in the rules answer, with its group. */
async function ruleNamed(name: string): Promise<{ group: Json; rule: Json; body: Json }> {
  const response = await gw().http.get(RULES);
  expect(response.status).toBe(200);
  const body = response.body as Json;
  expect(body.status).toBe('success');
  for (const group of body.data.groups as Json[]) {
    const rule = (group.rules as Json[]).find((candidate) => candidate.name === name);
    if (rule) return { group, rule, body };
  }
  throw new Error(`rule ${name} is not in the answer: ${JSON.stringify(body)}`);
}

/** What the console's bell shows: alerts of firing rules not Normal, each with its summary or description. */
function bell(body: Json): { text: string; activeAt: string }[] {
  const rules = (body.data.groups as Json[]).flatMap((group) => group.rules as Json[]);
  return rules
    .filter((rule) => rule.state === 'firing')
    .flatMap((rule) => rule.alerts as Json[])
    .filter((alert) => alert.state !== 'Normal')
    .map((alert) => ({ text: (alert.annotations.summary ?? alert.annotations.description) as string, activeAt: alert.activeAt as string }));
}

describe("Grafana's rules API on the embedded evaluator", () => {
  it('follows a rule through inactive, pending, firing and resolved', async () => {
    const dataset = unique('ruled').replace(/-/g, '_');
    await seedDataset(gw(), dataset, 'Live');
    const name = unique('Events arrive');
    const metric = `sum(increase(gateway_ingestion_events_total{dataset="${dataset}", stage="received"}[5m]))`;
    const { id } = await ok(
      await gw()
        .http.post('/alerts/v1/create')
        .send({
          name,
          manager: 'embedded',
          description: `Events reach ${dataset}`,
          category: 'ingestion',
          severity: 'warning',
          frequency: '10s',
          interval: '1m',
          labels: { team: 'data' },
          metadata: { queryBuilderContext: { metric, operator: 'gt', threshold: [0] } },
          context: { alertType: 'CUSTOM' },
        }),
    );
    // A draft is not evaluated, so not listed.
    expect(JSON.stringify((await gw().http.get(RULES)).body)).not.toContain(name);
    await ok(await gw().http.get(`/alerts/v1/publish/${id as string}`));

    const inactive = await ruleNamed(name);
    let rule = inactive.rule;
    expect(inactive.group).toMatchObject({ name: 'ingestion', file: 'ingestion', interval: 10 });
    expect(rule).toMatchObject({
      uid: id,
      state: 'inactive',
      health: 'unknown',
      type: 'alerting',
      duration: 60,
      query: `(${metric}) > 0`,
      labels: { team: 'data', alertId: id, severity: 'warning' },
      annotations: { description: `Events reach ${dataset}` },
      alerts: [],
    });

    const sample = (at: number) => gw().gateway.metricsSampler!.sample(at);
    const cycle = (at: number) => gw().gateway.alertEvaluator.cycle(at);
    const t0 = Date.now();
    await sample(t0);
    await ok(
      await gw()
        .http.post(`/v2/data/in/${dataset}`)
        .send({ ...envelope('api.data.in'), data: [{ id: 'a', ts: '2026-03-01T10:00:00Z', userid: 'u1', amount: 1 }] }),
    );
    await sample(t0 + 15 * SECOND);
    await cycle(t0 + 15 * SECOND);
    ({ rule } = await ruleNamed(name));
    expect(rule).toMatchObject({ state: 'pending', health: 'ok', lastEvaluation: new Date(t0 + 15 * SECOND).toISOString(), totals: { pending: 1 } });
    expect(rule.alerts).toEqual([
      {
        labels: { team: 'data', alertId: id, severity: 'warning', alertname: name, grafana_folder: 'ingestion' },
        annotations: { summary: expect.stringContaining(`${name} is pending`), description: `Events reach ${dataset}` },
        state: 'Pending',
        activeAt: new Date(t0 + 15 * SECOND).toISOString(),
        value: expect.stringMatching(/^\d/),
      },
    ]);
    expect(Number(rule.alerts[0].value)).toBeGreaterThan(0);

    await sample(t0 + 60 * SECOND);
    await cycle(t0 + 75 * SECOND);
    const firing = await ruleNamed(name);
    expect(firing.rule).toMatchObject({ state: 'firing', health: 'ok', totals: { alerting: 1 } });
    expect(firing.rule.alerts).toMatchObject([{ state: 'Alerting', activeAt: new Date(t0 + 15 * SECOND).toISOString() }]);
    expect(firing.group.totals).toMatchObject({ firing: 1 });
    expect(firing.body.data.totals).toMatchObject({ firing: 1 });
    // The bell shows it, with a text naming the rule.
    expect(bell(firing.body)).toEqual([{ text: expect.stringContaining(`${name} is firing`), activeAt: new Date(t0 + 15 * SECOND).toISOString() }]);

    // No event for five minutes: resolved, no alert left, and the bell is empty again.
    await sample(t0 + 6 * MINUTE);
    await sample(t0 + 8 * MINUTE);
    await cycle(t0 + 8 * MINUTE);
    const resolved = await ruleNamed(name);
    expect(resolved.rule).toMatchObject({ state: 'inactive', health: 'ok', alerts: [], totals: {} });
    expect(bell(resolved.body)).toEqual([]);
  });

  it('shows a rule whose condition cannot be evaluated with health error and its message', async () => {
    const name = unique('Broken');
    const { id } = await ok(
      await gw()
        .http.post('/alerts/v1/create')
        .send({
          name,
          manager: 'embedded',
          category: 'broken',
          frequency: '10s',
          interval: '0s',
          metadata: { queryBuilderContext: { metric: 'limitk(1, gateway_info)', operator: 'gt', threshold: [0] } },
          context: { alertType: 'CUSTOM' },
        }),
    );
    await ok(await gw().http.get(`/alerts/v1/publish/${id as string}`));
    await gw().gateway.alertEvaluator.cycle(Date.now() + 20 * MINUTE);
    const { rule, group } = await ruleNamed(name);
    expect(rule).toMatchObject({ state: 'inactive', health: 'error', lastError: expect.stringMatching(/limitk/) });
    expect(group.totals).toMatchObject({ inactive: 1, error: 1 });
  });
});

describe("Grafana's rules API with authentication on", () => {
  const secured = useForFile(() => startTestGateway(JWT_ENV));

  it('refuses a caller without credentials and answers one whose role lists alerts', async () => {
    const anonymous = await secured().http.get(RULES);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toMatchObject({ status: 'error', errorType: 'unauthorized' });
    const ingestor = await apiKey(secured(), ['ingestor']);
    expect((await secured().http.get(RULES).set('x-api-key', ingestor)).status).toBe(403);
    const operations = await apiKey(secured(), ['operations_admin']);
    const answered = await secured().http.get(RULES).set('x-api-key', operations);
    expect(answered.status).toBe(200);
    expect(answered.body).toEqual({ status: 'success', data: { groups: [], totals: {} } });
  });
});
