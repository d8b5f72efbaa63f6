// Every rule of PII analysis lives here: what a call may carry, which fields are examined, and
// how value evidence (from the detector, built-in or downstream) and field-name evidence become
// one score per field. Both transports call `analyze`.
//
// Scoring. For each field and kind of data T:
//   value evidence  v = (sum of the confidences of the field's values that are T) / (its values)
//   name evidence   k = what the field's name says about T (for kinds no value can prove, times
//                       the share of values that are plausible for T)
//   score           = 1 - (1 - v)(1 - k)     (either alone can carry it; together they reinforce)
// The field is reported with the T of the highest score when that reaches `minScore`. Unlike the
// original, every record and every nested field counts, and more evidence raises the score.
import { GatewayError } from '../../errors.js';
import type { PiiDetector } from '../../platform/pii-detector/pii-detector.js';
import { pathDeeperThan } from '../../validation/json-depth.js';
import { looksLikeAddress, looksLikeBirthDate, looksLikePersonName } from './detectors.js';
import { NAME_GATED_TYPES, nameEvidence } from './field-names.js';
import { collectFields, TooManyFields } from './fields.js';
import type { BuiltinPiiType, FieldSample, PiiFinding, PiiReason, PiiType, ValueEvidence } from './types.js';
import { isObject } from '../../validation/json-object.js';

export interface PiiServiceOptions {
  /** Most records one call may carry. */
  maxRecords: number;
  /** Largest serialised size of the records of one call. */
  maxBytes: number;
  /** Lowest score a field is reported with. */
  minScore: number;
}

/** Distinct values examined per field, and distinct fields per call. */
export const MAX_VALUES_PER_FIELD = 200;
export const MAX_FIELDS = 2_000;
/** Deepest nesting a record may have. */
export const MAX_RECORD_DEPTH = 32;

const PLAUSIBLE: Partial<Record<BuiltinPiiType, (value: string) => boolean>> = {
  name: looksLikePersonName,
  date_of_birth: (value) => looksLikeBirthDate(value),
  address: looksLikeAddress,
};

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

/** Reasons by score, ties by code and region, so the same records always read the same. */
function strongestFirst(a: PiiReason, b: PiiReason): number {
  return b.score - a.score || a.code.localeCompare(b.code) || a.region.localeCompare(b.region);
}

/** The finding for one field, or undefined when no kind reaches `minScore`. */
export function scoreField(sample: FieldSample, evidence: readonly ValueEvidence[], minScore: number): PiiFinding | undefined {
  const count = sample.values.length;
  if (count === 0) return undefined;
  const byType = new Map<PiiType, { value: number; reasons: PiiReason[]; name: number }>();
  const entry = (type: PiiType) => {
    let found = byType.get(type);
    if (!found) byType.set(type, (found = { value: 0, reasons: [], name: 0 }));
    return found;
  };

  for (const item of evidence) {
    const share = item.confidenceSum / count;
    const target = entry(item.type);
    target.value += share;
    target.reasons.push({ code: item.code, resourceKey: item.resourceKey, region: item.region, score: round(share) });
  }
  for (const { type, strength } of nameEvidence(sample.path)) {
    const plausible = PLAUSIBLE[type];
    const weight = NAME_GATED_TYPES.has(type) && plausible ? sample.values.filter(plausible).length / count : 1;
    const k = strength * weight;
    if (k <= 0) continue;
    const target = entry(type);
    target.name = k;
    target.reasons.push({ code: 'field_name', resourceKey: `pii.field_name.${type}`, region: '', score: round(k) });
  }

  let best: PiiFinding | undefined;
  for (const [type, found] of byType) {
    const score = 1 - (1 - Math.min(1, found.value)) * (1 - found.name);
    if (score >= minScore && (!best || score > best.score)) {
      best = { field: sample.path, type, score, reason: found.reasons.sort(strongestFirst) };
    }
  }
  return best && { ...best, score: round(best.score) };
}

export function createPiiService(detector: PiiDetector, options: PiiServiceOptions) {
  const invalid = (message: string) => new GatewayError('DATA_ANALYZE_PII_INVALID_INPUT', message);

  return {
    detectorName: detector.name,

    /** The fields of `records` judged to hold personal data, by path. */
    async analyze(datasetId: string, records: unknown): Promise<PiiFinding[]> {
      if (typeof datasetId !== 'string' || datasetId.trim() === '' || datasetId.length > 200) {
        throw invalid('dataset_id must be a non-empty string of at most 200 characters');
      }
      if (!Array.isArray(records) || records.length === 0) throw invalid('data must be a non-empty array of record objects');
      if (records.length > options.maxRecords) throw invalid(`data holds ${records.length} records; at most ${options.maxRecords} fit in one call (PII_MAX_RECORDS)`);
      const notObject = records.findIndex((record) => !isObject(record));
      if (notObject >= 0) throw invalid(`data/${notObject} is not a JSON object`);
      const tooDeep = pathDeeperThan(records, MAX_RECORD_DEPTH + 1);
      if (tooDeep !== undefined) throw invalid(`data${tooDeep.slice(0, 200)} is nested deeper than ${MAX_RECORD_DEPTH} levels`);
      const size = Buffer.byteLength(JSON.stringify(records));
      if (size > options.maxBytes) throw invalid(`the records take ${size} bytes; at most ${options.maxBytes} fit in one call (PII_MAX_BYTES)`);

      let fields: FieldSample[];
      try {
        fields = collectFields(records, { maxValuesPerField: MAX_VALUES_PER_FIELD, maxFields: MAX_FIELDS });
      } catch (error) {
        if (error instanceof TooManyFields) throw invalid(error.message);
        throw error;
      }
      const examined = fields.filter((field) => field.values.length > 0);
      const evidence = examined.length > 0 ? await detector.detect(examined, { datasetId }) : [];
      const byField = new Map<string, ValueEvidence[]>();
      for (const item of evidence) byField.set(item.field, [...(byField.get(item.field) ?? []), item]);

      return examined.flatMap((field) => scoreField(field, byField.get(field.path) ?? [], options.minScore) ?? []).sort((a, b) => (a.field < b.field ? -1 : a.field > b.field ? 1 : 0));
    },
  };
}

export type PiiService = ReturnType<typeof createPiiService>;
