// The `manager` field as legacy clients send it, written once for both transports, on a gateway
// with Alertmanager but without Grafana: the original's console sends `manager: "grafana"` with
// every channel and silence, and sends no manager at all in some bodies. Without Grafana that name
// is served by the platform's own manager (Alertmanager for silences; embedded for channels, which
// Alertmanager cannot hold), an alias from ALERT_MANAGER_ALIASES is served by its target, the
// start-up log says how once, and unknown names stay refused, naming the accepted ones.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { channelsNamed, emailChannel, silenceBody, silencesOf, silencesSentFor, slackChannel, type AlertingGateway } from '../support/alerting.js';
import type { Line } from '../support/log-lines.js';
import type { ChannelsDriver } from './alert-channels.js';
import type { SilencesDriver } from './alert-silences.js';
import { expectFailure, expectOk, type SuiteContext } from './harness.js';

/** An alerting gateway whose log lines are collected. */
export interface LoggedAlertingGateway extends AlertingGateway {
  logs: Line[];
}

/** What the gateway these scenarios run on is configured with, beside the alerting fixtures. */
export const LEGACY_MANAGER_ENV = { GRAFANA_URL: '', ALERT_MANAGER_ALIASES: 'prometheus=embedded' };

export function legacyManagerScenarios(ctx: SuiteContext<ChannelsDriver & SilencesDriver, LoggedAlertingGateway>): void {
  const stored = (name: string) => channelsNamed(ctx.gw, name);

  it('says once at start-up which manager serves the name "grafana", and each alias', () => {
    const messages = ctx.gw.logs.map((line) => String(line.msg));
    expect(messages.filter((message) => message.startsWith('alert manager name "grafana"'))).toEqual([
      'alert manager name "grafana" is served by alertmanager (no GRAFANA_URL), and its channels by embedded (alertmanager holds no channels); set ALERT_MANAGER_ALIASES to change',
    ]);
    expect(messages).toContain('alert manager name "prometheus" is served by embedded (ALERT_MANAGER_ALIASES)');
  });

  describe('channels', () => {
    it('stores a channel the console creates with manager "grafana" at the embedded manager, as a draft', async () => {
      // AddChannel.tsx: its form data, UI flags left out, with the manager it always sends.
      const body = { manager: 'grafana', name: `console ${randomUUID()}`, type: 'slack', config: { channel: 'ops-alerts', webhookUrl: slackChannel(ctx.gw.fx.webhook).config.webhookUrl } };
      const id = expectOk(await ctx.driver.createChannel(body)).id;
      expect((await stored(body.name))[0]).toMatchObject({ id, manager: 'embedded', status: 'draft', config: body.config });
      expect(expectOk(await ctx.driver.publishChannel(id))).toEqual({ id, status: 'published' });
      expect(await ctx.driver.readChannel(id)).toMatchObject({ ok: true, value: { manager: 'embedded', status: 'live', config: body.config } });
    });

    it('stores a channel created without a manager at the embedded manager (Alertmanager holds no channels)', async () => {
      const { manager: _, ...body } = emailChannel();
      expectOk(await ctx.driver.createChannel(body));
      expect((await stored(body.name))[0].manager).toBe('embedded');
    });

    it('serves an alias from ALERT_MANAGER_ALIASES, in any letter case', async () => {
      const body = emailChannel({ manager: 'Prometheus' });
      expectOk(await ctx.driver.createChannel(body));
      expect((await stored(body.name))[0].manager).toBe('embedded');
    });

    it('accepts the manager the console sends back with an update, and keeps the channel at its manager', async () => {
      const body = emailChannel({ manager: 'grafana' });
      const id = expectOk(await ctx.driver.createChannel(body)).id;
      expectOk(await ctx.driver.updateChannel(id, { manager: 'grafana', name: `${body.name} renamed`, type: 'email', config: body.config }));
      expect((await stored(`${body.name} renamed`))[0].manager).toBe('embedded');
    });

    it('tests a channel described inline with manager "grafana" through the gateway (there is no Grafana to ask)', async () => {
      const { smtp } = ctx.gw.fx;
      const received = smtp.messages.length;
      const outcome = expectOk(await ctx.driver.testChannel({ message: 'legacy test', payload: emailChannel({ manager: 'grafana', config: { recipientAddresses: 'legacy@example.com' } }) }));
      expect(outcome).toMatchObject({ status: 'Notification Sent', transport: 'smtp' });
      expect(smtp.messages[received]!.to).toEqual(['legacy@example.com']);
    });

    it.each([
      ['a name it does not know', 'opsgenie', /manager must be one of embedded, alertmanager, grafana, prometheus \(got "opsgenie"\)/],
      ['alertmanager, which holds no channels', 'alertmanager', /manager "alertmanager" cannot hold notification channels/],
    ])('refuses %s with NOTIFICATION_CHANNEL_INVALID_INPUT, and stores nothing', async (_, manager, message) => {
      const body = emailChannel({ manager });
      expectFailure(await ctx.driver.createChannel(body), 'NOTIFICATION_CHANNEL_INVALID_INPUT', message);
      expect(await stored(body.name)).toEqual([]);
    });
  });

  describe('silences', () => {
    it('holds a silence the console sends with manager "grafana" at Alertmanager', async () => {
      const body = silenceBody({ manager: 'grafana' });
      expectOk(await ctx.driver.createSilence(body));
      expect((await silencesOf(ctx.gw, body.alertId))[0].manager).toBe('alertmanager');
      expect(silencesSentFor(ctx.gw.fx.alertmanager, body.alertId)).toHaveLength(1);
    });

    it('holds a silence without a manager at the default manager: Alertmanager', async () => {
      const { manager: _, ...body } = silenceBody();
      expectOk(await ctx.driver.createSilence(body));
      expect((await silencesOf(ctx.gw, body.alertId))[0].manager).toBe('alertmanager');
    });

    it('refuses a manager name it does not know with SILENCE_INVALID_INPUT, naming the accepted ones', async () => {
      const body = silenceBody({ manager: 'opsgenie' });
      expectFailure(await ctx.driver.createSilence(body), 'SILENCE_INVALID_INPUT', /manager must be one of embedded, alertmanager, grafana, prometheus \(got "opsgenie"\)/i);
      expect(await silencesOf(ctx.gw, body.alertId)).toEqual([]);
    });
  });
}
