// The Grafana adapter on what it sends and how it reads Grafana's answers, against a small local
// HTTP server (Grafana itself is not packaged for these machines): the silence API under
// /api/alertmanager/grafana, contact points under /api/v1/provisioning, the receiver test, the
// token, and which answers count as done (an unknown silence or contact point on removal).
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { GatewayError } from '../../src/errors.js';
import { GrafanaAlertManager } from '../../src/platform/alert-manager/grafana.js';
import type { ChannelTarget } from '../../src/modules/alerts/index.js';
import { managerApi, startRecorder, type HttpRecorder } from '../support/alerting.js';
import { startSilentServer } from '../support/http-stub.js';

let grafana: HttpRecorder;
let client: GrafanaAlertManager;
beforeAll(async () => {
  grafana = await startRecorder(managerApi);
  // A trailing slash in the configured URL must not double up in paths.
  client = new GrafanaAlertManager({ url: `${grafana.url}/`, token: 'glsa_secret', timeoutMs: 1000 });
});
afterAll(async () => {
  await grafana?.stop();
});
afterEach(() => {
  grafana.reset();
  grafana.requests.length = 0;
});

const EMAIL: ChannelTarget = { name: 'Ops', type: 'email', config: { recipientAddresses: 'a@x.io;b@x.io', subject: 'S', message: 'M' }, recipients: ['a@x.io', 'b@x.io'] };
const TEAMS: ChannelTarget = { name: 'Teams', type: 'teams', config: { webhookUrl: 'https://contoso.webhook.office.com/webhookb2/x' }, recipients: [] };

async function failureOf(promise: Promise<unknown>): Promise<GatewayError> {
  try {
    await promise;
  } catch (error) {
    return error as GatewayError;
  }
  throw new Error('expected a failure');
}

describe('Grafana silences', () => {
  it("posts the silence to Grafana's Alertmanager with the service-account token and returns Grafana's id", async () => {
    const alertId = randomUUID();
    const startsAt = new Date('2030-01-01T00:00:00.000Z');
    const endsAt = new Date('2030-01-01T02:00:00.000Z');
    const id = await client.upsertSilence({ alertId, startsAt, endsAt, comment: 'c', createdBy: 'SYSTEM' });
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(grafana.requests).toHaveLength(1);
    const [sent] = grafana.requests;
    expect({ method: sent!.method, path: sent!.path, authorization: sent!.headers.authorization }).toEqual({
      method: 'POST',
      path: '/api/alertmanager/grafana/api/v2/silences',
      authorization: 'Bearer glsa_secret',
    });
    expect(sent!.body).toEqual({
      matchers: [{ name: 'alertId', value: alertId, isRegex: false, isEqual: true }],
      startsAt: '2030-01-01T00:00:00.000Z',
      endsAt: '2030-01-01T02:00:00.000Z',
      createdBy: 'SYSTEM',
      comment: 'c',
    });
  });

  it('replaces a silence by posting it with the old id, and posts a fresh one when Grafana no longer knows it', async () => {
    const spec = { alertId: randomUUID(), startsAt: new Date(), endsAt: new Date(Date.now() + 3_600_000), comment: 'c', createdBy: 'SYSTEM' };
    expect(await client.upsertSilence({ ...spec, replaces: 'old-id' })).toBe('old-id');
    expect(grafana.requests[0]!.body.id).toBe('old-id');

    grafana.requests.length = 0;
    grafana.respond = (request) => (request.body?.id ? { status: 404, body: { message: 'silence not found' } } : managerApi(request));
    const fresh = await client.upsertSilence({ ...spec, replaces: 'gone-id' });
    expect(fresh).not.toBe('gone-id');
    expect(grafana.requests.map((request) => request.body.id)).toEqual(['gone-id', undefined]);
  });

  it('expires a silence with DELETE, and takes "silence not found" as expired', async () => {
    await client.expireSilence('abc');
    expect(grafana.requests.map((request) => `${request.method} ${request.path}`)).toEqual(['DELETE /api/alertmanager/grafana/api/v2/silence/abc']);
    grafana.respond = () => ({ status: 404, body: { message: 'silence not found' } });
    await expect(client.expireSilence('abc')).resolves.toBeUndefined();
    await expect(client.expireSilence(null)).resolves.toBeUndefined();
  });

  it("fails with ALERT_MANAGER_FAILED carrying Grafana's message for any other refusal, and for an answer without an id", async () => {
    grafana.respond = () => ({ status: 401, body: { message: 'invalid API key' } });
    const refused = await failureOf(client.upsertSilence({ alertId: randomUUID(), startsAt: new Date(), endsAt: new Date(Date.now() + 60_000), comment: 'c', createdBy: 'SYSTEM' }));
    expect(refused.code).toBe('ALERT_MANAGER_FAILED');
    expect(refused.message).toMatch(/Grafana at http:\/\/127\.0\.0\.1:\d+ answered HTTP 401: \{"message":"invalid API key"\}/);

    grafana.respond = () => ({ status: 200, body: {} });
    const noId = await failureOf(client.upsertSilence({ alertId: randomUUID(), startsAt: new Date(), endsAt: new Date(Date.now() + 60_000), comment: 'c', createdBy: 'SYSTEM' }));
    expect(noId.message).toMatch(/answered without a silenceID/);
  });

  it('gives up after the time limit with ALERT_MANAGER_FAILED instead of hanging', async () => {
    // A server that accepts the connection and never answers.
    const silent = await startSilentServer();
    try {
      const hanging = new GrafanaAlertManager({ url: `http://127.0.0.1:${silent.port}`, timeoutMs: 200 });
      const started = Date.now();
      const error = await failureOf(hanging.expireSilence('abc'));
      expect(error.code).toBe('ALERT_MANAGER_FAILED');
      expect(error.message).toMatch(/could not be reached \(no answer within 200 ms\)/);
      expect(Date.now() - started).toBeLessThan(1500);
    } finally {
      await silent.stop();
    }
  });
});

describe('Grafana contact points', () => {
  it('creates an e-mail contact point under our id, provenance off', async () => {
    const id = randomUUID();
    await client.channels.create(id, EMAIL);
    const [sent] = grafana.requests;
    expect({ method: sent!.method, path: sent!.path, provenance: sent!.headers['x-disable-provenance'] }).toEqual({ method: 'POST', path: '/api/v1/provisioning/contact-points', provenance: 'true' });
    expect(sent!.body).toEqual({ uid: id, name: 'Ops', type: 'email', settings: { addresses: 'a@x.io;b@x.io', singleEmail: false, subject: 'S', message: 'M' }, disableResolveMessage: false });
  });

  it('updates a Teams contact point with PUT on its uid', async () => {
    await client.channels.update('cp-1', TEAMS);
    const [sent] = grafana.requests;
    expect(`${sent!.method} ${sent!.path}`).toBe('PUT /api/v1/provisioning/contact-points/cp-1');
    expect(sent!.body.settings).toEqual({ url: TEAMS.config.webhookUrl });
  });

  it('removes a contact point, taking one Grafana does not know as removed, and fails on any other refusal', async () => {
    await client.channels.remove('cp-2');
    expect(`${grafana.requests[0]!.method} ${grafana.requests[0]!.path}`).toBe('DELETE /api/v1/provisioning/contact-points/cp-2');
    grafana.respond = () => ({ status: 404, body: { message: 'not found' } });
    await expect(client.channels.remove('cp-2')).resolves.toBeUndefined();
    grafana.respond = () => ({ status: 409, body: { message: 'in use' } });
    expect((await failureOf(client.channels.remove('cp-2'))).code).toBe('ALERT_MANAGER_FAILED');
  });
});

describe('Grafana receiver test', () => {
  it("sends the message as the alert's summary and description to a receiver built from the channel", async () => {
    const report = await client.channels.test!({ ...EMAIL, id: 'cp-3' }, 'hello');
    expect(report).toEqual({ transport: 'grafana', response: 'HTTP 200: Ops ok' });
    const [sent] = grafana.requests;
    expect(`${sent!.method} ${sent!.path}`).toBe('POST /api/alertmanager/grafana/config/api/v1/receivers/test');
    expect(sent!.body.alert).toEqual({ annotations: { summary: 'hello', description: 'hello' }, labels: { alertname: 'GatewayTestNotification' } });
    expect(sent!.body.receivers[0].grafana_managed_receiver_configs[0]).toMatchObject({ uid: 'cp-3', type: 'email', settings: { addresses: 'a@x.io;b@x.io' } });
  });

  it('fails with NOTIFICATION_FAILED when Grafana reports the integration failed (207), and ALERT_MANAGER_FAILED when Grafana refuses the test', async () => {
    grafana.respond = () => ({ status: 207, body: { receivers: [{ name: 'Ops', grafana_managed_receiver_configs: [{ name: 'Ops', status: 'failed', error: 'dial tcp: connection refused' }] }] } });
    const failed = await failureOf(client.channels.test!(EMAIL, 'hello'));
    expect(failed.code).toBe('NOTIFICATION_FAILED');
    expect(failed.message).toMatch(/could not deliver the test message: dial tcp: connection refused/);
    grafana.respond = () => ({ status: 400, body: { message: 'bad receiver' } });
    expect((await failureOf(client.channels.test!(EMAIL, 'hello'))).code).toBe('ALERT_MANAGER_FAILED');
  });
});

describe('Grafana without a token', () => {
  it('sends no Authorization header', async () => {
    const anonymous = new GrafanaAlertManager({ url: grafana.url, timeoutMs: 1000 });
    await anonymous.expireSilence('abc');
    expect(grafana.requests[0]!.headers.authorization).toBeUndefined();
  });
});
