// Notifiers deliver a message to a channel the gateway sends through itself (channels of the
// embedded manager, and test messages of inline channels): e-mail over SMTP (or, with no SMTP
// server configured, into an outbox folder), Slack and Teams through their incoming webhooks.
// Each resolves with what the transport answered and fails with NOTIFICATION_FAILED saying why.
import type { Config } from '../../config.js';
import type { ChannelTarget, DeliveryReport } from './channel.js';
import { OutboxEmailSender, SmtpEmailSender, type EmailSender } from './smtp.js';
import { WebhookPolicy, WebhookSender, webhookPayload } from './webhook.js';

export interface NotificationMessage {
  subject: string;
  text: string;
}

export interface Notifier {
  /** `SMTP at mail.example:587`, `outbox ./.data/outbox`: for logs. */
  readonly description: string;
  deliver(channel: ChannelTarget, message: NotificationMessage): Promise<DeliveryReport>;
  /** Why a webhook URL may not be called (SSRF guard), or undefined when it may. */
  checkWebhookUrl(url: string): string | undefined;
}

export class ChannelNotifier implements Notifier {
  readonly description: string;

  constructor(
    private readonly email: EmailSender,
    private readonly webhook: WebhookSender,
    private readonly policy: WebhookPolicy,
  ) {
    this.description = `e-mail: ${email.description}; webhooks: ${policy.description}`;
  }

  deliver(channel: ChannelTarget, message: NotificationMessage): Promise<DeliveryReport> {
    if (channel.type === 'email') return this.email.send(channel.recipients, message.subject, message.text);
    return this.webhook.send(channel.config.webhookUrl ?? '', webhookPayload(message.text));
  }

  checkWebhookUrl(url: string): string | undefined {
    return this.policy.check(url);
  }
}

/** SMTP when SMTP_URL is set, the outbox folder otherwise; webhooks behind WEBHOOK_ALLOWED_HOSTS. */
export function createNotifier(settings: Config['alerting']): Notifier {
  const email = settings.smtp
    ? new SmtpEmailSender({ url: settings.smtp.url, from: settings.mailFrom, timeoutMs: settings.notifyTimeoutMs })
    : new OutboxEmailSender(settings.outboxDir, settings.mailFrom);
  const policy = new WebhookPolicy(settings.webhookAllowedHosts);
  return new ChannelNotifier(email, new WebhookSender(policy, settings.notifyTimeoutMs), policy);
}
