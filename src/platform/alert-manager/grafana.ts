// Grafana alerting over its HTTP API: silences in Grafana's own Alertmanager
// (/api/alertmanager/grafana/api/v2), notification channels as provisioned contact points whose
// uid is our channel id (/api/v1/provisioning/contact-points), and test messages through Grafana's
// receiver test, so a test proves that Grafana itself can deliver; alert rules in Grafana's ruler
// (grafana-ruler-client.ts), which evaluates them. Routing policies are left to Grafana's users: rewriting
// the whole policy tree (as the original did) races with every other writer, so a rule names its
// contact point itself (simplified routing).
import { GatewayError } from '../../errors.js';
import type { ChannelTarget, DeliveryReport } from '../notifier/channel.js';
import type { AlertManager, ChannelPort, RulePort, SilenceSpec } from './alert-manager.js';
import { SilenceApi } from './alertmanager.js';
import { GrafanaRules } from './grafana-ruler-client.js';
import { baseUrl, callManager, ok, unexpectedAnswer, type ManagerRequest } from './http.js';

export interface GrafanaSettings {
  url: string;
  /** A service-account token, sent as `Authorization: Bearer <token>`. */
  token?: string;
  timeoutMs: number;
}

/** The contact point Grafana stores for one of our channels. */
export function contactPoint(id: string, channel: ChannelTarget) {
  const settings =
    channel.type === 'email'
      ? {
          addresses: channel.recipients.join(';'),
          singleEmail: channel.recipients.length === 1,
          ...(channel.config.subject ? { subject: channel.config.subject } : {}),
          ...(channel.config.message ? { message: channel.config.message } : {}),
        }
      : // Grafana's Slack integration posts to `recipient` (a channel) when given; Teams has no such setting.
        { url: channel.config.webhookUrl, ...(channel.type === 'slack' && channel.config.channel ? { recipient: channel.config.channel } : {}) };
  return { uid: id, name: channel.name, type: channel.type, settings, disableResolveMessage: false };
}

interface ReceiverTestAnswer {
  receivers?: { grafana_managed_receiver_configs?: { name?: string; status?: string; error?: string }[] }[];
}

export class GrafanaAlertManager implements AlertManager {
  readonly kind = 'grafana' as const;
  readonly description: string;
  private readonly base: string;
  private readonly headers: Record<string, string>;
  private readonly silences: SilenceApi;
  readonly rules: RulePort;

  readonly channels: ChannelPort = {
    create: async (id, channel) => {
      const response = await this.call({ method: 'POST', url: `${this.base}/api/v1/provisioning/contact-points`, body: contactPoint(id, channel) });
      if (!ok(response.status)) throw unexpectedAnswer(this.description, response);
    },
    update: async (id, channel) => {
      const response = await this.call({ method: 'PUT', url: `${this.base}/api/v1/provisioning/contact-points/${encodeURIComponent(id)}`, body: contactPoint(id, channel) });
      if (!ok(response.status)) throw unexpectedAnswer(this.description, response);
    },
    remove: async (id) => {
      const response = await this.call({ method: 'DELETE', url: `${this.base}/api/v1/provisioning/contact-points/${encodeURIComponent(id)}` });
      if (!ok(response.status) && response.status !== 404) throw unexpectedAnswer(this.description, response);
    },
    test: async (channel, message) => this.testReceiver(channel, message),
  };

  constructor(private readonly settings: GrafanaSettings) {
    this.base = baseUrl(settings.url);
    this.description = `Grafana at ${this.base}`;
    // Provenance off keeps contact points editable in Grafana's UI (provisioned ones are locked otherwise).
    this.headers = { 'x-disable-provenance': 'true', ...(settings.token ? { authorization: `Bearer ${settings.token}` } : {}) };
    this.silences = new SilenceApi(this.description, `${this.base}/api/alertmanager/grafana/api/v2`, settings.timeoutMs, this.headers);
    this.rules = new GrafanaRules(this.description, (request) => this.call({ ...request, url: `${this.base}${request.url}` }));
  }

  upsertSilence(spec: SilenceSpec): Promise<string> {
    return this.silences.upsert(spec);
  }

  async expireSilence(managerSilenceId: string | null): Promise<void> {
    if (managerSilenceId) await this.silences.expire(managerSilenceId);
  }

  private async testReceiver(channel: ChannelTarget, message: string): Promise<DeliveryReport> {
    const point = contactPoint(channel.id ?? 'gateway-test', channel);
    const response = await this.call({
      method: 'POST',
      url: `${this.base}/api/alertmanager/grafana/config/api/v1/receivers/test`,
      body: {
        alert: { annotations: { summary: message, description: message }, labels: { alertname: 'GatewayTestNotification' } },
        receivers: [{ name: channel.name, grafana_managed_receiver_configs: [point] }],
      },
    });
    // 200: every integration delivered; 207: some failed (each says why); anything else: Grafana refused.
    if (response.status !== 200 && response.status !== 207) throw unexpectedAnswer(this.description, response);
    const configs = (response.body as ReceiverTestAnswer | undefined)?.receivers?.flatMap((receiver) => receiver.grafana_managed_receiver_configs ?? []) ?? [];
    const failed = configs.find((config) => config.status !== 'ok');
    if (failed || configs.length === 0) {
      throw new GatewayError('NOTIFICATION_FAILED', `${this.description} could not deliver the test message: ${failed?.error ?? response.text.slice(0, 300)}`);
    }
    return { transport: 'grafana', response: `HTTP ${response.status}: ${configs.map((config) => `${config.name ?? channel.name} ${config.status}`).join(', ')}` };
  }

  private call(request: Omit<ManagerRequest, 'timeoutMs' | 'headers'>) {
    return callManager(this.description, { ...request, timeoutMs: this.settings.timeoutMs, headers: this.headers });
  }
}
