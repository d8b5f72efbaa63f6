// Prometheus Alertmanager, HTTP API v2. Silences are created with one POST (with `id` to replace a
// silence: Alertmanager updates it in place, or expires it and answers a new id) and ended with
// DELETE. Alertmanager has no API for receivers (they live in its configuration file), so this
// manager holds no notification channels. Grafana embeds the same silence API under its own path.
import type { AlertManager, SilenceSpec } from './alert-manager.js';
import { baseUrl, callManager, managerFailure, ok, unexpectedAnswer } from './http.js';

export interface AlertmanagerSettings {
  url: string;
  timeoutMs: number;
}

/** The silence endpoints of an Alertmanager API v2 at `apiBase` (Prometheus's or Grafana's). */
export class SilenceApi {
  constructor(
    private readonly description: string,
    private readonly apiBase: string,
    private readonly timeoutMs: number,
    private readonly headers: Record<string, string> = {},
  ) {}

  async upsert(spec: SilenceSpec): Promise<string> {
    const fresh = {
      // The silence matches the alert rule's id, which our rules carry as the `alertId` label.
      matchers: [{ name: 'alertId', value: spec.alertId, isRegex: false, isEqual: true }],
      startsAt: spec.startsAt.toISOString(),
      endsAt: spec.endsAt.toISOString(),
      createdBy: spec.createdBy,
      comment: spec.comment,
    };
    let response = await this.call('POST', '/silences', spec.replaces ? { id: spec.replaces, ...fresh } : fresh);
    // The silence being replaced is gone (Alertmanager forgets expired silences after its
    // retention): there is nothing left to replace, so create a new one.
    if (response.status === 404 && spec.replaces) response = await this.call('POST', '/silences', fresh);
    if (!ok(response.status)) throw unexpectedAnswer(this.description, response);
    const id = (response.body as { silenceID?: unknown } | undefined)?.silenceID;
    if (typeof id !== 'string' || id === '') throw managerFailure(this.description, `answered without a silenceID: ${response.text.slice(0, 200)}`);
    return id;
  }

  async expire(id: string): Promise<void> {
    const response = await this.call('DELETE', `/silence/${encodeURIComponent(id)}`);
    // Alertmanager 0.25 answers an unknown id with 500 "silence not found", newer ones and Grafana with 404.
    if (ok(response.status) || response.status === 404 || /silence not found|already expired/i.test(response.text)) return;
    throw unexpectedAnswer(this.description, response);
  }

  private call(method: 'POST' | 'DELETE', path: string, body?: unknown) {
    return callManager(this.description, { method, url: `${this.apiBase}${path}`, body, headers: this.headers, timeoutMs: this.timeoutMs });
  }
}

export class PrometheusAlertmanager implements AlertManager {
  readonly kind = 'alertmanager' as const;
  readonly description: string;
  private readonly silences: SilenceApi;

  constructor(settings: AlertmanagerSettings) {
    this.description = `Alertmanager at ${baseUrl(settings.url)}`;
    this.silences = new SilenceApi(this.description, `${baseUrl(settings.url)}/api/v2`, settings.timeoutMs);
  }

  upsertSilence(spec: SilenceSpec): Promise<string> {
    return this.silences.upsert(spec);
  }

  async expireSilence(managerSilenceId: string | null): Promise<void> {
    if (managerSilenceId) await this.silences.expire(managerSilenceId);
  }
}
