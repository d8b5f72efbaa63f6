// Slack and Teams incoming webhooks, behind an allow list. The original POSTed to any URL a caller
// gave (an SSRF hole: any host the gateway can reach, cloud metadata included). Here a webhook URL
// must name a host of WEBHOOK_ALLOWED_HOSTS; wildcards (`*.webhook.office.com`) match sub-domains
// only, never an IP address or `localhost`, so loopback and private addresses are reachable only
// when listed by name. Redirects are not followed: they could lead anywhere.
import { GatewayError } from '../../errors.js';
import type { DeliveryReport } from './channel.js';
import { describeFetchError } from '../alert-manager/http.js';

interface AllowedHost {
  /** Lower-case host name, or `.suffix` for a wildcard entry. */
  host: string;
  wildcard: boolean;
  /** Only this port when given. */
  port?: string;
}

const IP_LITERAL = /^(\d{1,3}(\.\d{1,3}){3}|\[[0-9a-f:.]+\])$/i;

function defaultPort(protocol: string): string {
  return protocol === 'https:' ? '443' : '80';
}

export class WebhookPolicy {
  private readonly allowed: AllowedHost[];
  private readonly listed: string;
  readonly description: string;

  /** `entries`: `host`, `host:port`, `*.domain`, `[::1]:8080`; bad entries are refused by the config schema. */
  constructor(entries: readonly string[]) {
    this.allowed = entries.map(parseAllowedHost);
    this.listed = entries.length > 0 ? entries.join(', ') : 'empty';
    this.description = `allowed hosts: ${this.listed}`;
  }

  check(raw: string): string | undefined {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return 'is not a URL';
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return `must be an http or https URL (got ${url.protocol})`;
    if (url.username || url.password) return 'must not carry credentials';
    const host = url.hostname.toLowerCase();
    const port = url.port || defaultPort(url.protocol);
    const allowed = this.allowed.some((entry) => {
      if (entry.port !== undefined && entry.port !== port) return false;
      if (!entry.wildcard) return entry.host === host;
      return !IP_LITERAL.test(host) && host !== 'localhost' && host.endsWith(entry.host);
    });
    return allowed ? undefined : `names host ${url.host}, which is not in WEBHOOK_ALLOWED_HOSTS (${this.listed})`;
  }
}

export function parseAllowedHost(entry: string): AllowedHost {
  const trimmed = entry.trim().toLowerCase();
  const wildcard = trimmed.startsWith('*.');
  const url = new URL(`http://${wildcard ? trimmed.slice(2) : trimmed}`);
  if (url.pathname !== '/' || url.search || url.username) throw new Error(`${entry}: give a host, optionally with :port`);
  return { host: wildcard ? `.${url.hostname}` : url.hostname, wildcard, ...(url.port ? { port: url.port } : {}) };
}

/** The body Slack and Teams incoming webhooks both take: `{text}` (Slack's simplest message, a Teams MessageCard). */
export function webhookPayload(text: string): Record<string, unknown> {
  return { text };
}

export class WebhookSender {
  constructor(
    private readonly policy: WebhookPolicy,
    private readonly timeoutMs: number,
  ) {}

  async send(url: string, payload: Record<string, unknown>): Promise<DeliveryReport> {
    // Checked again here, not only when the channel was saved: the allow list may have shrunk since.
    const refused = this.policy.check(url);
    if (refused) throw new GatewayError('NOTIFICATION_FAILED', `the webhook URL ${refused}`);
    const where = `the webhook at ${new URL(url).host}`;
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(payload),
        redirect: 'manual',
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      throw new GatewayError('NOTIFICATION_FAILED', `${where} could not be reached (${describeFetchError(error, this.timeoutMs)})`);
    }
    const text = (await response.text()).trim().slice(0, 300);
    if (response.status >= 300 && response.status < 400) {
      throw new GatewayError('NOTIFICATION_FAILED', `${where} answered a redirect (HTTP ${response.status}), which the gateway does not follow`);
    }
    if (!response.ok) throw new GatewayError('NOTIFICATION_FAILED', `${where} answered HTTP ${response.status}${text ? `: ${text}` : ''}`);
    return { transport: 'webhook', response: `HTTP ${response.status}${text ? `: ${text}` : ''}` };
  }
}
