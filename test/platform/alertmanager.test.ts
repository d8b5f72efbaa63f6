// The Alertmanager adapter against the real Prometheus Alertmanager (Debian's
// prometheus-alertmanager, started here on 127.0.0.1 with gossip off): silences the gateway
// creates really appear there, silence the alert's notifications, are replaced in place, and
// expire; and through the gateway's REST layer end to end. Without the binary these tests are
// skipped, saying why; .ci/run installs it.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { GatewayError } from '../../src/errors.js';
import { PrometheusAlertmanager } from '../../src/platform/alert-manager/alertmanager.js';
import { findFreePort } from '../../src/platform/database/embedded.js';
import { findBinary, startAlertmanager, type RunningAlertmanager } from '../support/alerting.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { describeWhenInstalled } from '../support/skip.js';

interface AmSilence {
  id: string;
  status: { state: 'active' | 'pending' | 'expired' };
  matchers: { name: string; value: string; isRegex: boolean; isEqual: boolean }[];
  startsAt: string;
  endsAt: string;
  createdBy: string;
  comment: string;
}

function hoursFromNow(hours: number): Date {
  return new Date(Date.now() + hours * 3_600_000);
}

async function failureOf(promise: Promise<unknown>): Promise<GatewayError> {
  try {
    await promise;
  } catch (error) {
    return error as GatewayError;
  }
  throw new Error('expected a failure');
}

const binary = findBinary('prometheus-alertmanager');
const maybe = describeWhenInstalled(binary, 'prometheus-alertmanager');

maybe(`Prometheus Alertmanager (${binary ?? 'not installed: apt-get install -y prometheus-alertmanager'})`, () => {
  let am: RunningAlertmanager;
  let manager: PrometheusAlertmanager;

  async function silenceAt(id: string): Promise<AmSilence> {
    return (await (await fetch(`${am.url}/api/v2/silence/${id}`)).json()) as AmSilence;
  }

  async function silencesOfAlert(alertId: string): Promise<AmSilence[]> {
    const all = (await (await fetch(`${am.url}/api/v2/silences`)).json()) as AmSilence[];
    return all.filter((silence) => silence.matchers.some((matcher) => matcher.name === 'alertId' && matcher.value === alertId));
  }

  beforeAll(async () => {
    am = await startAlertmanager(binary!);
    manager = new PrometheusAlertmanager({ url: am.url, timeoutMs: 3000 });
  });
  afterAll(async () => {
    await am?.stop();
  });

  it('creates a silence Alertmanager holds as active, matching the alert by its alertId label', async () => {
    const alertId = randomUUID();
    const startsAt = new Date(Date.now() - 60_000);
    const endsAt = hoursFromNow(1);
    const id = await manager.upsertSilence({ alertId, startsAt, endsAt, comment: 'maintenance', createdBy: 'SYSTEM' });
    const silence = await silenceAt(id);
    expect(silence).toMatchObject({
      status: { state: 'active' },
      matchers: [{ name: 'alertId', value: alertId, isRegex: false, isEqual: true }],
      createdBy: 'SYSTEM',
      comment: 'maintenance',
    });
    expect(Date.parse(silence.endsAt)).toBe(endsAt.getTime());
  });

  it('holds back the notifications of the silenced alert (Alertmanager marks it suppressed by our silence)', async () => {
    const alertId = randomUUID();
    const id = await manager.upsertSilence({ alertId, startsAt: new Date(), endsAt: hoursFromNow(1), comment: 'c', createdBy: 'SYSTEM' });
    const posted = await fetch(`${am.url}/api/v2/alerts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([{ labels: { alertname: 'DatasetLag', alertId }, startsAt: new Date().toISOString() }]),
    });
    expect(posted.status).toBe(200);
    let alert: { status: { state: string; silencedBy: string[] } } | undefined;
    for (let attempt = 0; attempt < 50 && alert?.status.state !== 'suppressed'; attempt += 1) {
      const alerts = (await (await fetch(`${am.url}/api/v2/alerts?filter=alertId%3D%22${alertId}%22`)).json()) as { status: { state: string; silencedBy: string[] } }[];
      alert = alerts[0];
      if (alert?.status.state !== 'suppressed') await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(alert?.status).toMatchObject({ state: 'suppressed', silencedBy: [id] });
  });

  it('replaces a silence: a new end keeps one silence for the alert, a new start expires the old one and answers a new id', async () => {
    const alertId = randomUUID();
    const first = await manager.upsertSilence({ alertId, startsAt: new Date(), endsAt: hoursFromNow(1), comment: 'c', createdBy: 'SYSTEM' });
    // Alertmanager starts a silence given a past start at its own clock, and updates an active one in
    // place only for the same start to the second: the start it holds, as a caller that read it back sends.
    const startsAt = new Date((await silenceAt(first)).startsAt);
    const longerEnd = hoursFromNow(3);
    const longer = await manager.upsertSilence({ alertId, startsAt, endsAt: longerEnd, comment: 'c', createdBy: 'SYSTEM', replaces: first });
    expect(longer).toBe(first);
    expect(Date.parse((await silenceAt(first)).endsAt)).toBe(longerEnd.getTime());

    const later = await manager.upsertSilence({ alertId, startsAt: hoursFromNow(1), endsAt: hoursFromNow(4), comment: 'c', createdBy: 'SYSTEM', replaces: longer });
    expect(later).not.toBe(longer);
    expect((await silenceAt(longer)).status.state).toBe('expired');
    expect((await silencesOfAlert(alertId)).filter((silence) => silence.status.state !== 'expired').map((silence) => silence.id)).toEqual([later]);
  });

  it('creates a new silence when the one it replaces is unknown to Alertmanager', async () => {
    const alertId = randomUUID();
    const id = await manager.upsertSilence({ alertId, startsAt: new Date(), endsAt: hoursFromNow(1), comment: 'c', createdBy: 'SYSTEM', replaces: randomUUID() });
    expect((await silenceAt(id)).status.state).toBe('active');
  });

  it('expires a silence, and takes an unknown or already expired one as expired', async () => {
    const id = await manager.upsertSilence({ alertId: randomUUID(), startsAt: new Date(), endsAt: hoursFromNow(1), comment: 'c', createdBy: 'SYSTEM' });
    await manager.expireSilence(id);
    expect((await silenceAt(id)).status.state).toBe('expired');
    await expect(manager.expireSilence(id)).resolves.toBeUndefined();
    await expect(manager.expireSilence(randomUUID())).resolves.toBeUndefined();
  });

  it("fails with ALERT_MANAGER_FAILED carrying Alertmanager's own reason when it refuses a silence", async () => {
    const error = await failureOf(manager.upsertSilence({ alertId: randomUUID(), startsAt: hoursFromNow(-3), endsAt: hoursFromNow(-2), comment: 'c', createdBy: 'SYSTEM' }));
    expect(error).toBeInstanceOf(GatewayError);
    expect(error.code).toBe('ALERT_MANAGER_FAILED');
    expect(error.httpStatus).toBe(502);
    expect(error.message).toMatch(/answered HTTP 400: Failed to create silence: end time can't be in the past/);
  });

  describe('through the gateway', () => {
    let gw: TestGateway;
    beforeAll(async () => {
      gw = await startTestGateway({ ALERTMANAGER_URL: am.url });
    });
    afterAll(async () => {
      await gw?.stop();
    });

    it('POST /alerts/v1/silence/create makes an active silence in Alertmanager; DELETE /silence/delete expires it there', async () => {
      const alertId = randomUUID();
      const created = await gw.http.post('/alerts/v1/silence/create').send({ startDate: new Date().toISOString(), endDate: hoursFromNow(2).toISOString(), alertId, manager: 'alertmanager' });
      expect(created.status).toBe(200);
      const [stored] = (await gw.sql('SELECT manager_silence_id FROM alert_silences WHERE id = $1', [created.body.result.id])).rows;
      const [held] = await silencesOfAlert(alertId);
      expect(held).toMatchObject({ id: stored!.manager_silence_id, status: { state: 'active' }, comment: `Silence for alert: ${alertId}` });

      const deleted = await gw.http.delete(`/alerts/v1/silence/delete/${created.body.result.id}`);
      expect(deleted.status).toBe(200);
      expect((await silenceAt(held!.id)).status.state).toBe('expired');
      expect((await gw.sql('SELECT id FROM alert_silences WHERE alert_id = $1', [alertId])).rows).toEqual([]);
    });

    it('silencing the alert again replaces the silence in Alertmanager instead of leaving the old one running', async () => {
      const alertId = randomUUID();
      const body = { startDate: new Date().toISOString(), endDate: hoursFromNow(1).toISOString(), alertId, manager: 'alertmanager' };
      expect((await gw.http.post('/alerts/v1/silence/create').send(body)).status).toBe(200);
      expect((await gw.http.post('/alerts/v1/silence/create').send({ ...body, startDate: hoursFromNow(0.5).toISOString(), endDate: hoursFromNow(6).toISOString() })).status).toBe(200);
      const running = (await silencesOfAlert(alertId)).filter((silence) => silence.status.state !== 'expired');
      expect(running).toHaveLength(1);
      const [stored] = (await gw.sql<{ end_time: Date }>('SELECT end_time FROM alert_silences WHERE alert_id = $1', [alertId])).rows;
      expect(Date.parse(running[0]!.endsAt)).toBe(stored!.end_time.getTime());
    });
  });
});

describe('Alertmanager that cannot be reached', () => {
  it('fails fast with ALERT_MANAGER_FAILED naming the connection error', async () => {
    const port = await findFreePort();
    const manager = new PrometheusAlertmanager({ url: `http://127.0.0.1:${port}`, timeoutMs: 2000 });
    const started = Date.now();
    const error = await failureOf(manager.upsertSilence({ alertId: randomUUID(), startsAt: new Date(), endsAt: hoursFromNow(1), comment: 'c', createdBy: 'SYSTEM' }));
    expect(error.code).toBe('ALERT_MANAGER_FAILED');
    expect(error.message).toMatch(new RegExp(`Alertmanager at http://127\\.0\\.0\\.1:${port} could not be reached \\(ECONNREFUSED\\)`));
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
