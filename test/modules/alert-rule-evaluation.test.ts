// Alerting that fires, end to end on the embedded defaults, with time injected (never slept):
// failed ingests → the rule on the failure count goes pending, then firing → one e-mail → a silence
// holds back the next notification (recorded as silenced) → the condition clears → a resolve e-mail.
// And several gateways on one database: each due rule is evaluated once per interval, each
// notification sent once, and a gateway that died mid-cycle leaves nothing lost.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import supertest from 'supertest';
import { type Gateway } from '../../src/server.js';
import { startSmtpSink, type SmtpSink } from '../support/alerting.js';
import { envelope } from '../support/api.js';
import { seedDataset } from '../support/datasets.js';
import { startCopy, startTestGateway, type TestGateway } from '../support/gateway.js';
import { STRICT_SCHEMA, unique } from '../support/ingestion.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;

let smtp: SmtpSink;
let gw: TestGateway;
let second: Gateway;

beforeAll(async () => {
  smtp = await startSmtpSink();
  // Nothing runs on its own: the test samples and evaluates at the times it chooses.
  const env = { SMTP_URL: smtp.url, METRICS_SAMPLE_INTERVAL_SECONDS: '0', ALERT_EVALUATION_TICK_SECONDS: '0', ALERT_REPEAT_INTERVAL_MINUTES: '2' };
  gw = await startTestGateway(env);
  second = await startCopy(gw, env);
});

afterAll(async () => {
  await second?.stop();
  await gw?.stop();
  await smtp?.stop();
});

const sample = (at: number) => gw.gateway.metricsSampler!.sample(at);
const cycle = (at: number) => gw.gateway.alertEvaluator.cycle(at);

async function ok(response: supertest.Response): Promise<Record<string, any>> {
  expect([response.status, response.body.error]).toEqual([200, undefined]);
  return response.body.result as Record<string, any>;
}

async function createChannel(name: string): Promise<string> {
  const created = await ok(await gw.http.post('/alerts/v1/notifications/create').send({ manager: 'embedded', name, type: 'email', config: { recipientAddresses: 'oncall@example.com' } }));
  // A channel is a draft until published; rules notify Live channels only.
  await ok(await gw.http.get(`/alerts/v1/notifications/publish/${created.id as string}`));
  return created.id as string;
}

/** A rule as the console writes it: the failure count of one dataset over 5 minutes above zero. */
function failureRule(name: string, dataset: string, channelId: string, overrides: Record<string, unknown> = {}) {
  return {
    name,
    manager: 'embedded',
    description: `Events of ${dataset} fail validation`,
    category: 'processing',
    severity: 'critical',
    frequency: '10s',
    interval: '1m',
    labels: { team: 'data' },
    metadata: { queryBuilderContext: { metric: `sum(increase(gateway_ingestion_events_total{dataset="${dataset}", stage="failed"}[5m]))`, operator: 'gt', threshold: [0] } },
    notification: { channels: [channelId] },
    context: { alertType: 'CUSTOM' },
    ...overrides,
  };
}

async function readRule(id: string): Promise<Record<string, any>> {
  return (await ok(await gw.http.get(`/alerts/v1/get/${id}`))).alerts as Record<string, any>;
}

const notifications = async (ruleId: string) =>
  (await gw.sql('SELECT kind, outcome, subject, attempts FROM alert_notifications WHERE rule_id = $1 ORDER BY evaluated_at, kind', [ruleId])).rows as Record<string, unknown>[];

const mailsAbout = (name: string) => smtp.messages.filter((mail) => mail.data.includes(name));

describe('a rule on the failure count of a dataset, end to end', () => {
  it('goes pending, fires with one e-mail, stays quiet under a silence, and resolves with a second e-mail', async () => {
    const dataset = unique('alerted').replace(/-/g, '_');
    await seedDataset(gw, dataset, 'Live', { data_schema: STRICT_SCHEMA, validation_config: { validate: true, mode: 'Strict' } });
    const channelId = await createChannel(unique('oncall'));
    const name = unique('Failing events');
    const { id } = await ok(await gw.http.post('/alerts/v1/create').send(failureRule(name, dataset, channelId)));
    expect(await readRule(id as string)).toMatchObject({ status: 'draft', silenceState: { state: 'unmuted' } });
    await ok(await gw.http.get(`/alerts/v1/publish/${id as string}`));

    const t0 = Date.now();
    await sample(t0);
    // Two events the dataset's Strict schema refuses: accepted, then failed at validation.
    await ok(
      await gw.http.post(`/v2/data/in/${dataset}`).send({
        ...envelope('api.data.in'),
        params: { msgid: unique('m') },
        data: [
          { id: 'a', amount: 'ten' },
          { id: 'b', amount: 'eleven' },
        ],
      }),
    );
    await sample(t0 + 15 * SECOND);

    // The condition holds: pending for the rule's minute, no notification yet.
    await cycle(t0 + 15 * SECOND);
    let rule = await readRule(id as string);
    expect(rule.alertData).toMatchObject({ state: 'pending', alerts: [{ state: 'Pending', labels: {} }] });
    expect(rule.alertData.alerts[0].value).toBeGreaterThan(0);
    expect(mailsAbout(name)).toEqual([]);

    // A minute later it still holds: firing, and the channel gets one e-mail.
    await sample(t0 + 60 * SECOND);
    await cycle(t0 + 75 * SECOND);
    rule = await readRule(id as string);
    expect(rule.alertData.state).toBe('firing');
    expect(mailsAbout(name)).toHaveLength(1);
    expect(mailsAbout(name)[0]!.data).toContain(`[FIRING] ${name}`);
    expect(mailsAbout(name)[0]!.to).toEqual(['oncall@example.com']);
    // Evaluating again within the repeat interval sends nothing more.
    await cycle(t0 + 90 * SECOND);
    expect(mailsAbout(name)).toHaveLength(1);

    // Silenced: the repeat due two minutes after the first e-mail is recorded, not sent.
    const silence = await ok(
      await gw.http.post('/alerts/v1/silence/create').send({ alertId: id, manager: 'embedded', startDate: new Date(t0).toISOString(), endDate: new Date(t0 + 60 * MINUTE).toISOString() }),
    );
    expect((await readRule(id as string)).silenceState).toMatchObject({ state: 'muted', silenceId: silence.id });
    await sample(t0 + 3 * MINUTE);
    await cycle(t0 + 3 * MINUTE + 20 * SECOND);
    expect(mailsAbout(name)).toHaveLength(1);
    expect(await notifications(id as string)).toEqual([
      { kind: 'firing', outcome: 'sent', subject: `[FIRING] ${name}`, attempts: 1 },
      { kind: 'repeat', outcome: 'silenced', subject: `[FIRING] ${name} (still firing)`, attempts: 0 },
    ]);

    // The silence ends and no event has failed for five minutes: resolved, with a second e-mail.
    await ok(await gw.http.delete(`/alerts/v1/silence/delete/${silence.id as string}`));
    await sample(t0 + 6 * MINUTE);
    await sample(t0 + 8 * MINUTE);
    await cycle(t0 + 8 * MINUTE);
    expect((await readRule(id as string)).alertData).toMatchObject({ state: 'inactive', alerts: [] });
    expect(mailsAbout(name).map((mail) => (mail.data.includes('[RESOLVED]') ? 'resolved' : 'firing'))).toEqual(['firing', 'resolved']);
    expect((await notifications(id as string)).map((row) => [row.kind, row.outcome])).toEqual([
      ['firing', 'sent'],
      ['repeat', 'silenced'],
      ['resolved', 'sent'],
    ]);
  });

  it('compares a scalar metric as a one-series vector', async () => {
    const channelId = await createChannel(unique('oncall-scalar'));
    const rule = failureRule(unique('Scalar'), 'none', channelId, { interval: '0s', metadata: { queryBuilderContext: { metric: 'scalar(sum(gateway_info))', operator: 'gt', threshold: [0] } } });
    const { id } = await ok(await gw.http.post('/alerts/v1/create').send(rule));
    await ok(await gw.http.get(`/alerts/v1/publish/${id as string}`));
    const at = Date.now() + 10 * MINUTE;
    await sample(at - SECOND);
    await cycle(at);
    expect((await readRule(id as string)).alertData).toMatchObject({ state: 'firing', alerts: [{ value: 1 }] });
  });

  it('keeps its state and shows the error when its condition cannot be evaluated', async () => {
    const channelId = await createChannel(unique('oncall-broken'));
    // limitk parses as PromQL, but the embedded evaluator refuses it by name.
    const rule = failureRule(unique('Broken'), 'none', channelId, { metadata: { queryBuilderContext: { metric: 'limitk(1, gateway_info)', operator: 'gt', threshold: [0] } } });
    const { id } = await ok(await gw.http.post('/alerts/v1/create').send(rule));
    await ok(await gw.http.get(`/alerts/v1/publish/${id as string}`));
    await cycle(Date.now() + 11 * MINUTE);
    const { alertData } = await readRule(id as string);
    expect(alertData).toMatchObject({ state: 'inactive', lastError: expect.stringMatching(/limitk/) });
  });
});

describe('two gateways on one database', () => {
  it('evaluate each due rule once and send each notification once, even when both run a cycle at the same time', async () => {
    const channelId = await createChannel(unique('oncall-shared'));
    const names = Array.from({ length: 6 }, (_, i) => unique(`Shared ${i}`));
    const ids: string[] = [];
    for (const name of names) {
      const { id } = await ok(
        await gw.http
          .post('/alerts/v1/create')
          .send(failureRule(name, 'any', channelId, { interval: '0s', metadata: { queryBuilderContext: { metric: 'sum(gateway_info)', operator: 'gt', threshold: [0] } } })),
      );
      await ok(await gw.http.get(`/alerts/v1/publish/${id as string}`));
      ids.push(id as string);
    }
    const at = Date.now() + 20 * MINUTE;
    await sample(at - 5 * SECOND);
    const [a, b] = await Promise.all([gw.gateway.alertEvaluator.cycle(at), second.alertEvaluator.cycle(at)]);
    // Other tests' Live rules are due too; these six were each evaluated by exactly one of the two.
    expect(a.evaluated + b.evaluated).toBeGreaterThanOrEqual(ids.length);
    const states = await gw.sql(`SELECT rule_id, state, last_evaluated_at FROM alert_rule_states WHERE rule_id = ANY($1::uuid[])`, [ids]);
    expect(states.rows.map((row) => row.state)).toEqual(ids.map(() => 'firing'));
    const sent = await gw.sql(`SELECT rule_id, outcome, attempts FROM alert_notifications WHERE rule_id = ANY($1::uuid[])`, [ids]);
    expect(sent.rows).toHaveLength(ids.length);
    expect(sent.rows.every((row) => row.outcome === 'sent' && row.attempts === 1)).toBe(true);
    for (const name of names) expect(mailsAbout(name)).toHaveLength(1);
    // Run again at the same time: nothing is due, nothing is sent twice.
    const [again1, again2] = await Promise.all([gw.gateway.alertEvaluator.cycle(at), second.alertEvaluator.cycle(at)]);
    expect(again1.evaluated + again2.evaluated).toBe(0);
    for (const name of names) expect(mailsAbout(name)).toHaveLength(1);
  });

  it('sends what a gateway that died after deciding left pending, once', async () => {
    const channelId = await createChannel(unique('oncall-orphan'));
    const name = unique('Orphaned');
    const { id } = await ok(await gw.http.post('/alerts/v1/create').send(failureRule(name, 'any', channelId)));
    // What a gateway leaves when it dies between committing its decision and delivering it.
    await gw.sql(`INSERT INTO alert_notifications (id, rule_id, channel_id, kind, evaluated_at, subject, text) VALUES (gen_random_uuid(), $1, $2, 'firing', now(), $3, 'left pending')`, [
      id,
      channelId,
      `[FIRING] ${name}`,
    ]);
    await Promise.all([gw.gateway.alertEvaluator.cycle(Date.now()), second.alertEvaluator.cycle(Date.now())]);
    expect(mailsAbout(name)).toHaveLength(1);
    expect((await notifications(id as string)).map((row) => [row.outcome, row.attempts])).toEqual([['sent', 1]]);
  });
});
