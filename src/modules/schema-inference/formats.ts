// Detection rules for single values: what a string or a number looks like. Each rule is a plain
// function over one value; the algorithm counts the answers per field and decides from the counts.
import { isIPv6 } from 'node:net';

/**
 * The original's epoch floor, 2000-01-01T00:00:00Z in seconds. Numbers below it are not taken for
 * times; in milliseconds the same instant is the floor of the millisecond range.
 */
export const EPOCH_SECONDS_MIN = 946_684_800;
/**
 * 2100-01-01T00:00:00Z in seconds. The original has no ceiling, so every large id or amount became
 * an "epoch"; with one, seconds and milliseconds no longer overlap and phone-number-sized values
 * (around 10^10) fall between the two ranges.
 */
export const EPOCH_SECONDS_MAX = 4_102_444_800;
export const EPOCH_MILLIS_MIN = EPOCH_SECONDS_MIN * 1000;
export const EPOCH_MILLIS_MAX = EPOCH_SECONDS_MAX * 1000;

/** What a string value looks like, most specific first. `text` is anything else. */
export type StringFormat = 'date-time' | 'date' | 'epoch' | 'numeric' | 'boolean' | 'uuid' | 'email' | 'ipv4' | 'ipv6' | 'uri' | 'text';

/** What a number looks like: an epoch time in seconds or milliseconds, or a plain number. */
export type NumberFormat = 'epoch-seconds' | 'epoch-millis' | 'plain';

// ISO 8601 / RFC 3339: date, `T` or a space, hours and minutes, optional seconds and fraction,
// optional `Z` or offset. Calendar ranges are checked in code, which a regex does badly.
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,]\d{1,9})?)?(?:[Zz]|[+-](\d{2})(?::?(\d{2}))?)?$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
// Digits only and no leading zero: "00123" is a code, not a number.
const DIGITS = /^[1-9]\d{0,15}$/;
const NUMERIC = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const EMAIL = /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/;
const IPV4 = /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const URI = /^[a-z][a-z0-9+.-]*:\/\/[^\s/?#]+[^\s]*$/i;
const BOOLEAN_TEXT = /^(?:true|false)$/i;

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function isCalendarDate(year: string, month: string, day: string): boolean {
  const m = Number(month);
  const d = Number(day);
  return m >= 1 && m <= 12 && d >= 1 && d <= daysInMonth(Number(year), m);
}

export function isIsoDateTime(value: string): boolean {
  const match = DATE_TIME.exec(value);
  if (!match) return false;
  const [, year, month, day, hour, minute, second, offsetHours, offsetMinutes] = match;
  return (
    isCalendarDate(year!, month!, day!) &&
    Number(hour) <= 23 &&
    Number(minute) <= 59 &&
    // 60 is a leap second, which RFC 3339 allows.
    (second === undefined || Number(second) <= 60) &&
    (offsetHours === undefined || Number(offsetHours) <= 23) &&
    (offsetMinutes === undefined || Number(offsetMinutes) <= 59)
  );
}

export function isIsoDate(value: string): boolean {
  const match = DATE.exec(value);
  return match !== null && isCalendarDate(match[1]!, match[2]!, match[3]!);
}

/** Epoch format of a number, or `plain`. Only whole numbers count: a fraction is a measurement. */
export function numberFormat(value: number): NumberFormat {
  if (!Number.isInteger(value)) return 'plain';
  if (value >= EPOCH_SECONDS_MIN && value <= EPOCH_SECONDS_MAX) return 'epoch-seconds';
  if (value >= EPOCH_MILLIS_MIN && value <= EPOCH_MILLIS_MAX) return 'epoch-millis';
  return 'plain';
}

/** Milliseconds since 1970 of an epoch value (seconds or milliseconds). */
export function epochToMillis(value: number): number {
  return value <= EPOCH_SECONDS_MAX ? value * 1000 : value;
}

export function stringFormat(value: string): StringFormat {
  if (value.length === 0 || value.length > 512) return 'text';
  const first = value.charCodeAt(0);
  const startsWithDigit = first >= 48 && first <= 57;
  if (startsWithDigit) {
    if (DIGITS.test(value)) return numberFormat(Number(value)) === 'plain' ? 'numeric' : 'epoch';
    if (value.length >= 16 && isIsoDateTime(value)) return 'date-time';
    if (value.length === 10 && isIsoDate(value)) return 'date';
    if (IPV4.test(value)) return 'ipv4';
  }
  if ((startsWithDigit || first === 45) && NUMERIC.test(value)) return 'numeric';
  if (value.length === 36 && UUID.test(value)) return 'uuid';
  if (value.length <= 5 && BOOLEAN_TEXT.test(value)) return 'boolean';
  if (value.includes('@')) return value.length <= 254 && EMAIL.test(value) ? 'email' : 'text';
  if (value.includes('://')) return URI.test(value) ? 'uri' : 'text';
  if (value.includes(':') && isIPv6(value)) return 'ipv6';
  return 'text';
}
