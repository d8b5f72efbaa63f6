// Domain types of PII analysis (contract 2.6, 4.2).

/** Kinds of personal data the built-in detectors know; a downstream detector may report others. */
export const PII_TYPES = ['email', 'phone', 'credit_card', 'iban', 'ip_address', 'ssn', 'aadhaar', 'pan', 'passport', 'date_of_birth', 'name', 'address'] as const;
export type BuiltinPiiType = (typeof PII_TYPES)[number];
/** Open: a downstream detector's entity types outside our list pass through in lower case. */
export type PiiType = BuiltinPiiType | (string & {});

/** One piece of evidence behind a finding (contract 2.6 `reason`). */
export interface PiiReason {
  /** What fired: a value detector (`credit_card`, `iban`, ...), a downstream recogniser, or `field_name`. */
  code: string;
  /** Key of the explanation text, for a console to translate (e.g. `pii.value.credit_card`). */
  resourceKey: string;
  /** ISO 3166 region the evidence belongs to (IN for Aadhaar, the phone number's country, ...), or "". */
  region: string;
  /** This evidence's weight in the finding's score, 0 to 1. */
  score: number;
}

/** A field judged to hold personal data (contract 2.6). */
export interface PiiFinding {
  /** Dotted path of the field in the records (`customer.contact.email`); arrays are transparent. */
  field: string;
  type: PiiType;
  /** Confidence, 0 to 1: value evidence across records combined with field-name evidence. */
  score: number;
  reason: PiiReason[];
}

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
