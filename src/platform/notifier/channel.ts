// A notification channel as the alerts service hands it to an alert manager or a notifier, and
// what delivering through it answered. The alerts module owns the rules about channels; these are
// the shapes it shares with the ports.

export const CHANNEL_TYPES = ['email', 'slack', 'teams'] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];

/** What a channel needs to deliver: recipients for e-mail, a webhook for Slack and Teams. */
export interface ChannelConfig {
  /** E-mail: the addresses, as given (`a@x;b@y`). */
  recipientAddresses?: string;
  /** E-mail: subject line of notifications. */
  subject?: string;
  /** E-mail: body template of notifications. */
  message?: string;
  /** Slack and Teams: the incoming-webhook URL. */
  webhookUrl?: string;
  /** Slack and Teams: the channel's name in Slack or Teams, as the console asks for it. */
  channel?: string;
  /** Any type: labels (string to string) the original let a channel carry. */
  labels?: Record<string, string>;
}

/** A channel as the service hands it to a manager or a notifier: validated, recipients split. */
export interface ChannelTarget {
  id?: string;
  name: string;
  type: ChannelType;
  config: ChannelConfig;
  /** E-mail only: each address of `recipientAddresses`, trimmed. */
  recipients: string[];
}

/** What the transport that carried a test message answered. */
export interface DeliveryReport {
  /** `smtp`, `outbox` (no SMTP configured: written to a folder), `webhook` or `grafana`. */
  transport: string;
  /** The transport's own answer, e.g. `250 OK: queued` or `HTTP 200 ok`. */
  response: string;
}
