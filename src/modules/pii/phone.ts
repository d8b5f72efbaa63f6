// Phone numbers, validated against each country's numbering plan by libphonenumber-js ("max"
// metadata, which checks number types and not only lengths). The library happily finds a number
// inside "ORD-4155552671" or "2024-01-15", so the value must look like a phone number first, and
// national numbers (no +) count only in the shapes a person writes them for a known region.
import { createRequire } from 'node:module';
import type { CountryCode } from 'libphonenumber-js/max';

type PhoneLibrary = typeof import('libphonenumber-js/max');
let library: PhoneLibrary | undefined;

/**
 * The library's CommonJS build: its ES build imports its metadata JSON without an import
 * attribute, which Node accepts but Jest reports on every test file that loads the gateway.
 * Loaded at the first value checked: its metadata takes ~0.1 s to read, which a gateway that never
 * looks for PII (and each test file) need not pay at start.
 */
function parsePhoneNumberFromString(...args: Parameters<PhoneLibrary['parsePhoneNumberFromString']>): ReturnType<PhoneLibrary['parsePhoneNumberFromString']> {
  library ??= createRequire(import.meta.url)('libphonenumber-js/max') as PhoneLibrary;
  return library.parsePhoneNumberFromString(...args);
}

export interface PhoneMatch {
  /** ISO 3166 region of the number. */
  region: string;
  /** 0 to 1: international form is near certain; bare digits could as well be an order id. */
  confidence: number;
}

export interface PhoneDetector {
  detect(text: string): PhoneMatch | undefined;
}

/**
 * National forms (no +) a number is tried in, in this order: ten digits for the US (with an
 * optional leading 1) and India, then a trunk 0 for the others. With a trunk 0, India comes after
 * the UK, France and Australia (its STD codes overlap theirs: 020 is Pune as well as London), and
 * Germany last, since its open numbering plan takes almost any digits.
 */
const NATIONAL_FORMS: readonly { region: CountryCode; fits: (digits: string) => boolean }[] = [
  { region: 'US', fits: (digits) => digits.length === 10 || (digits.length === 11 && digits.startsWith('1')) },
  { region: 'IN', fits: (digits) => digits.length === 10 && !digits.startsWith('0') },
  ...(['GB', 'FR', 'AU'] as const).map((region) => ({ region, fits: (digits: string) => digits.startsWith('0') })),
  { region: 'IN', fits: (digits) => digits.length === 11 && digits.startsWith('0') },
  { region: 'DE', fits: (digits) => digits.startsWith('0') },
];

const PHONE_CHARACTERS = /^\+?[\d\s().\-/]+$/;
const DATE_SHAPES = [/^\d{4}[-/.]\d{1,2}[-/.]\d{1,2}$/, /^\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}$/];

export const CONFIDENCE = { international: 0.85, formatted: 0.55, bare: 0.3 } as const;

export const phoneDetector: PhoneDetector = {
  detect(text) {
    const value = text.trim();
    if (value.length > 32 || !PHONE_CHARACTERS.test(value) || DATE_SHAPES.some((shape) => shape.test(value))) return undefined;
    const digits = value.replace(/\D/g, '');
    if (digits.length < 7 || digits.length > 15) return undefined;

    if (value.startsWith('+')) {
      const number = parsePhoneNumberFromString(value);
      return number?.isValid() ? { region: number.country ?? '', confidence: CONFIDENCE.international } : undefined;
    }
    const formatted = /[\s().\-/]/.test(value);
    for (const { region, fits } of NATIONAL_FORMS) {
      if (!fits(digits)) continue;
      const number = parsePhoneNumberFromString(value, region);
      // The country may be a neighbour sharing the plan (GB numbers include Guernsey's, GG).
      if (number?.isValid()) {
        return { region: number.country ?? region, confidence: formatted ? CONFIDENCE.formatted : CONFIDENCE.bare };
      }
    }
    return undefined;
  },
};
