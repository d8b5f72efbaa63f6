// Domain types of PII analysis (contract 2.6, 4.2).

import type { PiiType } from '../../platform/pii-detector/pii-detector.js';

export type { BuiltinPiiType, FieldSample, PiiType, ValueEvidence } from '../../platform/pii-detector/pii-detector.js';

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
