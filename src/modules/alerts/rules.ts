// The rules alerting inputs must keep, as plain functions returning the reason a value is refused
// (or undefined when it is fine). The service turns reasons into errors, the same for both transports.
import { CHANNEL_ORDER_FIELDS, CHANNEL_STATUSES, CHANNEL_TYPES, MANAGER_KINDS, type ChannelOrderField, type ChannelStatus, type ChannelType, type ManagerKind } from './types.js';
import { oneOf } from '../../validation/one-of.js';

export const NAME_MAX_LENGTH = 200;
export const COMPONENT_MAX_LENGTH = 100;
export const COMMENT_MAX_LENGTH = 500;
export const METRIC_MAX_LENGTH = 10_000;
export const MESSAGE_MAX_LENGTH = 10_000;
export const SUBJECT_MAX_LENGTH = 500;
export const URL_MAX_LENGTH = 2_000;
export const RECIPIENTS_MAX_LENGTH = 5_000;
export const RECIPIENTS_MAX = 50;
/** A Slack or Teams channel's name, as the console limits it. */
export const CHANNEL_NAME_MAX_LENGTH = 100;
export const LABELS_MAX = 50;
export const LABEL_NAME_MAX_LENGTH = 100;
export const LABEL_VALUE_MAX_LENGTH = 500;
/** A silence longer than a year is a mistake more often than an intention (Grafana caps its UI too). */
export const SILENCE_MAX_DAYS = 366;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// The HTML living standard's "valid e-mail address" (what browsers accept in <input type=email>):
// strict enough to catch typos, without RFC 5322's quoted local parts no mail server needs here.
const EMAIL = /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;
// Printable text without control characters (names end up in Grafana, e-mail headers and logs).
const PRINTABLE = /^[^\p{Cc}]+$/u;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** Records are named by UUIDs; an id far longer than one is refused rather than looked up (and echoed whole). */
const ID_MAX_LENGTH = 64;

export function checkIdLength(what: string, id: string): string | undefined {
  return id.length > ID_MAX_LENGTH ? `${what} must be at most ${ID_MAX_LENGTH} characters (got ${id.length})` : undefined;
}

export const isManagerKind = oneOf<ManagerKind>(MANAGER_KINDS);
export const isChannelType = oneOf<ChannelType>(CHANNEL_TYPES);
export const isChannelStatus = oneOf<ChannelStatus>(CHANNEL_STATUSES);
export const isChannelOrderField = oneOf<ChannelOrderField>(CHANNEL_ORDER_FIELDS);

/** Labels: an object of at most LABELS_MAX names, each mapped to a string. */
export function checkLabels(what: string, labels: unknown): string | undefined {
  if (typeof labels !== 'object' || labels === null || Array.isArray(labels)) return `${what} must be an object of names to strings`;
  const entries = Object.entries(labels);
  if (entries.length > LABELS_MAX) return `${what} may hold at most ${LABELS_MAX} labels`;
  for (const [name, value] of entries) {
    const problem = checkName(`${what} name`, name, LABEL_NAME_MAX_LENGTH);
    if (problem) return `${problem} (${JSON.stringify(name.slice(0, 40))})`;
    if (typeof value !== 'string') return `${what}.${name} must be a string`;
    if (value.length > LABEL_VALUE_MAX_LENGTH) return `${what}.${name} must be at most ${LABEL_VALUE_MAX_LENGTH} characters`;
    if (value !== '' && !PRINTABLE.test(value)) return `${what}.${name} must not contain control characters`;
  }
  return undefined;
}

export function checkName(what: string, value: string, max = NAME_MAX_LENGTH): string | undefined {
  if (value.trim() === '') return `${what} must not be empty`;
  if (value.length > max) return `${what} must be at most ${max} characters`;
  if (!PRINTABLE.test(value)) return `${what} must not contain control characters`;
  return undefined;
}

/** A silence window: a real interval that has not ended yet (a manager would refuse one in the past). */
export function checkSilenceWindow(start: Date, end: Date, now: Date): string | undefined {
  if (Number.isNaN(start.getTime())) return 'startDate is not a date';
  if (Number.isNaN(end.getTime())) return 'endDate is not a date';
  if (end.getTime() <= start.getTime()) return `endDate (${end.toISOString()}) must be after startDate (${start.toISOString()})`;
  if (end.getTime() <= now.getTime()) return `endDate (${end.toISOString()}) is in the past: a silence must end in the future`;
  if (end.getTime() - start.getTime() > SILENCE_MAX_DAYS * 86_400_000) return `a silence may last at most ${SILENCE_MAX_DAYS} days`;
  return undefined;
}

/** `a@x; b@y;` -> ['a@x', 'b@y']: split on `;`, trimmed, empty pieces (a trailing `;`) dropped. */
export function splitRecipients(text: string): { recipients: string[]; problem?: undefined } | { recipients?: undefined; problem: string } {
  if (text.length > RECIPIENTS_MAX_LENGTH) return { problem: `recipientAddresses must be at most ${RECIPIENTS_MAX_LENGTH} characters` };
  const recipients = text
    .split(';')
    .map((address) => address.trim())
    .filter((address) => address !== '');
  if (recipients.length === 0) return { problem: 'recipientAddresses must hold at least one e-mail address (several are joined by ";")' };
  if (recipients.length > RECIPIENTS_MAX) return { problem: `recipientAddresses may hold at most ${RECIPIENTS_MAX} addresses` };
  const bad = recipients.filter((address) => address.length > 254 || !EMAIL.test(address));
  if (bad.length > 0)
    return {
      problem: `recipientAddresses: ${bad.map((address) => JSON.stringify(address.slice(0, 80))).join(', ')} ${bad.length === 1 ? 'is not a valid e-mail address' : 'are not valid e-mail addresses'}`,
    };
  return { recipients };
}

/** A metric alias's context as entries, by key (the store keeps no order of its own): a string value as it is, any other as its JSON text. */
export function contextEntries(context: Record<string, unknown> | null): { key: string; value: string | null }[] {
  return Object.entries(context ?? {})
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, value]) => ({ key, value: value === null ? null : typeof value === 'string' ? value : JSON.stringify(value) }));
}
