// PII detection: the built-in detectors by default, or a downstream detector over HTTP (a Presidio
// analyzer) when PII_SERVICE_URL is set. A detector only reports what it sees in each field's
// values; the PII service combines that with field-name evidence, scores and decides.
import type { Config } from '../../config.js';
import { BuiltinPiiDetector } from './builtin.js';
import { PresidioPiiDetector } from './presidio.js';

/** Kinds of personal data the built-in detectors know; a downstream detector may report others. */
export const PII_TYPES = ['email', 'phone', 'credit_card', 'iban', 'ip_address', 'ssn', 'aadhaar', 'pan', 'passport', 'date_of_birth', 'name', 'address'] as const;
export type BuiltinPiiType = (typeof PII_TYPES)[number];
/** Open: a downstream detector's entity types outside our list pass through in lower case. */
export type PiiType = BuiltinPiiType | (string & {});

/** The distinct non-empty values one field holds across the analysed records, as text. */
export interface FieldSample {
  path: string;
  values: string[];
}

/**
 * What a detector saw in one field's values for one type: `hits` values matched, with
 * `confidenceSum` the sum of each matching value's confidence (each value counted once per type).
 */
export interface ValueEvidence {
  field: string;
  type: PiiType;
  code: string;
  resourceKey: string;
  region: string;
  hits: number;
  confidenceSum: number;
}

/** One built-in detector's verdict on one value. */
export interface ValueHit {
  type: BuiltinPiiType;
  /** The detector that fired; also the finding reason's `code`. */
  code: string;
  region: string;
  confidence: number;
}

/**
 * The PII module's rules a detector applies (src/modules/pii), handed over by src/server.ts so that
 * the platform never imports a module: the built-in detector runs detectValue on each value; a
 * downstream detector sends a field's name words as context.
 */
export interface PiiRules {
  detectValue: (value: string) => ValueHit[];
  /** Words of a field name, lower case: `billingAddressLine1` → billing, address, line, 1. */
  nameWords: (name: string) => string[];
}

export interface DetectContext {
  /** The dataset the records are samples of (sent downstream for correlation). */
  datasetId: string;
}

export interface PiiDetector {
  /** A short description for logs. */
  readonly name: string;
  /**
   * Value evidence for each field, at most one entry per (field, type, detector, region), each value
   * counted once per type. A downstream failure is a GatewayError ERR_BAD_REQUEST naming its status.
   */
  detect(fields: readonly FieldSample[], context: DetectContext): Promise<ValueEvidence[]>;
}

export function createPiiDetector(settings: Config['pii'], rules: PiiRules): PiiDetector {
  return settings.service ? new PresidioPiiDetector(settings.service, rules.nameWords) : new BuiltinPiiDetector(rules.detectValue);
}
