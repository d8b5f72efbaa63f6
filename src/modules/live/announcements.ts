// Live events every gateway must deliver (an alert rule's transition, a notification's outcome)
// travel as announcements on the channel the caches already LISTEN to (gateway_changes), sent with
// pg_notify inside the transaction that records them: PostgreSQL delivers them to every copy once,
// at commit, and never for a transaction that rolled back. Payload "live.<kind>:<json>".
import type pg from 'pg';
import { CHANGE_CHANNEL } from '../../platform/cache/change-feed.js';

export const LIVE_TABLE_PREFIX = 'live.';

export type LiveKind = 'alert_rule_state' | 'notification';

/** PostgreSQL refuses payloads of 8000 bytes or more; long texts are cut to stay well below. */
const MAX_TEXT = 2000;

export interface AlertRuleTransition {
  ruleId: string;
  ruleName: string;
  from: 'inactive' | 'pending' | 'firing';
  /** `resolved`: firing → inactive. */
  to: 'inactive' | 'pending' | 'firing' | 'resolved';
  /** The value that decided it (the first series' value), null when no series held. */
  value: number | null;
  at: string;
}

export interface NotificationOutcomeEvent {
  id: string;
  ruleId: string;
  channelId: string;
  kind: string;
  evaluatedAt: string;
  outcome: string;
  subject: string;
  text: string;
  transport: string | null;
  response: string | null;
  attempts: number;
  createdDate: string;
  deliveredDate: string | null;
}

export function announceLive(client: Pick<pg.ClientBase, 'query'>, kind: 'alert_rule_state', event: AlertRuleTransition): Promise<unknown>;
export function announceLive(client: Pick<pg.ClientBase, 'query'>, kind: 'notification', event: NotificationOutcomeEvent): Promise<unknown>;
export function announceLive(client: Pick<pg.ClientBase, 'query'>, kind: LiveKind, event: object): Promise<unknown> {
  const cut = Object.fromEntries(Object.entries(event).map(([key, value]) => [key, typeof value === 'string' && value.length > MAX_TEXT ? value.slice(0, MAX_TEXT) : value]));
  return client.query('SELECT pg_notify($1, $2)', [CHANGE_CHANNEL, `${LIVE_TABLE_PREFIX}${kind}:${JSON.stringify(cut)}`]);
}
