// Value detectors: each decides whether ONE value is a given kind of personal data, validating
// (check digits, numbering plans, ranges) rather than matching a shape, and says how sure it is.
// Confidence reflects how often a look-alike passes the check: a Luhn-valid number with a card
// prefix is rarely anything else; nine bare digits could be an SSN or an order number.
import { isIPv4, isIPv6 } from 'node:net';
import { ibanValid, luhnValid, verhoeffValid } from './checksums.js';
import { phoneDetector, type PhoneDetector } from './phone.js';
import type { PiiRules, ValueHit } from '../../platform/pii-detector/pii-detector.js';
import { nameWords } from './field-names.js';

/** Longest value the detectors look at; no identifier they know is anywhere near it. */
export const MAX_VALUE_LENGTH = 256;

const EMAIL_LOCAL = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const DOMAIN_LABEL = /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

export function isEmail(value: string): boolean {
  if (value.length > 254) return false;
  const at = value.lastIndexOf('@');
  if (at <= 0 || at > 64) return false;
  const local = value.slice(0, at);
  const labels = value.slice(at + 1).split('.');
  const tld = labels[labels.length - 1]!;
  return EMAIL_LOCAL.test(local) && labels.length >= 2 && labels.every((label) => DOMAIN_LABEL.test(label)) && (/^[A-Za-z]{2,24}$/.test(tld) || /^xn--[A-Za-z0-9-]{2,59}$/.test(tld));
}

/** Issuer prefixes (IIN ranges) of the card schemes in use, with their number lengths. */
function cardSchemeKnown(digits: string): boolean {
  const n = digits.length;
  const prefix = (length: number) => Number(digits.slice(0, length));
  if (digits.startsWith('4')) return n === 13 || n === 16 || n === 19; // Visa
  if ((prefix(2) >= 51 && prefix(2) <= 55) || (prefix(4) >= 2221 && prefix(4) <= 2720)) return n === 16; // Mastercard
  if (prefix(2) === 34 || prefix(2) === 37) return n === 15; // American Express
  if (digits.startsWith('6011') || digits.startsWith('65') || (prefix(3) >= 644 && prefix(3) <= 649)) return n >= 16 && n <= 19; // Discover
  if (prefix(4) >= 3528 && prefix(4) <= 3589) return n >= 16 && n <= 19; // JCB
  if ((prefix(3) >= 300 && prefix(3) <= 305) || prefix(2) === 36 || prefix(2) === 38 || prefix(2) === 39) return n >= 14 && n <= 19; // Diners
  if (digits.startsWith('62') || digits.startsWith('81') || digits.startsWith('82') || digits.startsWith('60') || digits.startsWith('508')) return n >= 16 && n <= 19; // UnionPay, RuPay
  if (['5018', '5020', '5038', '5893', '6304', '6759', '6761', '6762', '6763'].includes(digits.slice(0, 4))) return n >= 12 && n <= 19; // Maestro
  return false;
}

export function isCardNumber(value: string): boolean {
  // Digits, optionally grouped by single spaces or dashes, as printed on a card or typed in a form.
  if (!/^\d+([ -]\d+)*$/.test(value)) return false;
  const digits = value.replace(/[ -]/g, '');
  if (digits.length < 12 || digits.length > 19 || /^(\d)\1+$/.test(digits)) return false;
  return cardSchemeKnown(digits) && luhnValid(digits);
}

/** The IBAN's country when the value is one (electronic or grouped print form), else undefined. */
export function ibanCountry(value: string): string | undefined {
  if (!/^[A-Za-z]{2}\d{2}( ?[A-Za-z0-9]{1,4})+$/.test(value)) return undefined;
  const iban = value.replace(/ /g, '').toUpperCase();
  return ibanValid(iban) ? iban.slice(0, 2) : undefined;
}

/** US SSN rules: no area 000, 666 or 900-999, no group 00, no serial 0000, nor the famous samples. */
export function ssnForm(value: string): 'dashed' | 'bare' | undefined {
  const match = /^(\d{3})-(\d{2})-(\d{4})$/.exec(value) ?? /^(\d{3})(\d{2})(\d{4})$/.exec(value);
  if (!match) return undefined;
  const [, area, group, serial] = match as unknown as [string, string, string, string];
  if (area === '000' || area === '666' || area >= '900' || group === '00' || serial === '0000') return undefined;
  if (['078051120', '219099999', '123456789'].includes(area + group + serial)) return undefined;
  return value.includes('-') ? 'dashed' : 'bare';
}

function ssnShaped(value: string): boolean {
  return /^\d{3}-\d{2}-\d{4}$/.test(value);
}

/** Aadhaar: 12 digits (often 4-4-4), never starting with 0 or 1, last digit a Verhoeff check. */
export function aadhaarForm(value: string): 'grouped' | 'bare' | undefined {
  if (!/^[2-9]\d{3}(\d{4}\d{4}| \d{4} \d{4}|-\d{4}-\d{4})$/.test(value)) return undefined;
  return verhoeffValid(value.replace(/[ -]/g, '')) ? (/[ -]/.test(value) ? 'grouped' : 'bare') : undefined;
}

/** Indian PAN: five letters (the fourth says the holder's kind), four digits, a letter. */
export function isPan(value: string): boolean {
  return /^[A-Z]{3}[ABCFGHJLPT][A-Z]\d{4}[A-Z]$/.test(value);
}

/** Passport-like ids: the Indian format, a letter or two and 6 to 9 digits, or 9 digits (US). Weak alone. */
export function passportRegion(value: string): string | undefined {
  if (/^[A-PR-WY][1-9]\d ?\d{4}[1-9]$/.test(value)) return 'IN';
  if (/^[A-Z]{1,2}\d{6,9}$/.test(value) || /^\d{9}$/.test(value)) return '';
  return undefined;
}

export function ipv4Confidence(value: string): number | undefined {
  if (!isIPv4(value)) return undefined;
  const [a, b] = value.split('.').map(Number) as [number, number];
  // Loopback, "this network", broadcast and multicast addresses point at no one.
  if (a === 0 || a === 127 || a >= 224) return undefined;
  const isPrivate = a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254);
  return isPrivate ? 0.55 : 0.75;
}

export function isIpv6(value: string): boolean {
  return isIPv6(value) && value !== '::' && value !== '::1';
}

// ---------------------------------------------------------------------------------------------
// Plausibility checks for the kinds recognised by field name (a name, a date of birth, an
// address): a value cannot prove them, but it can rule them out.

const NAME_WORD = "\\p{L}[\\p{L}'’.-]*";
const PERSON_NAME = new RegExp(`^${NAME_WORD}(\\s+${NAME_WORD}){0,4}$`, 'u');

export function looksLikePersonName(value: string): boolean {
  return value.length >= 2 && value.length <= 70 && PERSON_NAME.test(value);
}

const MONTHS = 'jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec';
const TEXT_DATE = new RegExp(`^(\\d{1,2}\\s+(${MONTHS})[a-z]*\\.?,?\\s+\\d{4}|(${MONTHS})[a-z]*\\.?\\s+\\d{1,2},?\\s+\\d{4})$`, 'i');

/** A calendar date from 1900 to today, in the common written forms. */
export function looksLikeBirthDate(value: string, now = new Date()): boolean {
  let year: number;
  let month: number;
  let day: number;
  let match: RegExpExecArray | null;
  if ((match = /^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.exec(value))) {
    [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  } else if ((match = /^(\d{1,2})[-/.](\d{1,2})[-/.](\d{4})$/.exec(value))) {
    // Day first or month first: either reading will do, as long as one is a real date.
    const [first, second] = [Number(match[1]), Number(match[2])];
    year = Number(match[3]);
    [day, month] = first > 12 ? [first, second] : [second, first];
  } else if (TEXT_DATE.test(value)) {
    const parsed = new Date(`${value.replace(/,/g, '')} UTC`);
    if (Number.isNaN(parsed.getTime())) return false;
    [year, month, day] = [parsed.getUTCFullYear(), parsed.getUTCMonth() + 1, parsed.getUTCDate()];
  } else {
    return false;
  }
  if (year < 1900 || month < 1 || month > 12 || day < 1) return false;
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCDate() === day && date.getTime() <= now.getTime();
}

export function looksLikeAddress(value: string): boolean {
  return value.length >= 8 && value.length <= 300 && /\p{L}{2}/u.test(value) && /[\d,]/.test(value) && /\s/.test(value);
}

// ---------------------------------------------------------------------------------------------

/** Every detector that recognises the value; at most one hit per type. */
export function detectValue(raw: string, phones: PhoneDetector = phoneDetector): ValueHit[] {
  const value = raw.trim();
  if (value.length === 0 || value.length > MAX_VALUE_LENGTH) return [];
  const hits: ValueHit[] = [];
  if (value.includes('@')) {
    if (isEmail(value)) hits.push({ type: 'email', code: 'email', region: '', confidence: 0.95 });
    return hits;
  }
  if (isCardNumber(value)) hits.push({ type: 'credit_card', code: 'credit_card', region: '', confidence: 0.9 });
  const iban = ibanCountry(value);
  if (iban) hits.push({ type: 'iban', code: 'iban', region: iban, confidence: 0.97 });
  const ipv4 = ipv4Confidence(value);
  if (ipv4 !== undefined) hits.push({ type: 'ip_address', code: 'ipv4', region: '', confidence: ipv4 });
  else if (value.includes(':') && isIpv6(value)) hits.push({ type: 'ip_address', code: 'ipv6', region: '', confidence: 0.85 });
  const ssn = ssnForm(value);
  if (ssn) hits.push({ type: 'ssn', code: 'ssn', region: 'US', confidence: ssn === 'dashed' ? 0.75 : 0.2 });
  const aadhaar = aadhaarForm(value);
  if (aadhaar) hits.push({ type: 'aadhaar', code: 'aadhaar', region: 'IN', confidence: aadhaar === 'grouped' ? 0.85 : 0.45 });
  if (isPan(value)) hits.push({ type: 'pan', code: 'pan', region: 'IN', confidence: 0.85 });
  const passport = passportRegion(value);
  if (passport !== undefined) hits.push({ type: 'passport', code: 'passport', region: passport, confidence: 0.3 });
  // A card, IBAN, Aadhaar or IP address is not also a phone number, nor is anything in the SSN's 3-2-4 shape.
  if (!ssnShaped(value) && !hits.some((hit) => hit.type === 'credit_card' || hit.type === 'iban' || hit.type === 'aadhaar' || hit.type === 'ip_address')) {
    const phone = phones.detect(value);
    if (phone) hits.push({ type: 'phone', code: 'phone', region: phone.region, confidence: phone.confidence });
  }
  return hits;
}

/** The rules a PII detector adapter applies, as src/server.ts hands them to it. */
export const piiRules: PiiRules = { detectValue: (value) => detectValue(value), nameWords };
