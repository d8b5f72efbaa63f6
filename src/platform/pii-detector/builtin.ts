// The built-in detector: the PII module's validating value detectors (handed over as
// PiiRules.detectValue), run in process.
import type { FieldSample, PiiDetector, PiiRules, ValueEvidence } from './pii-detector.js';

/** Fields examined between two yields to the event loop, so one large request cannot stall others. */
const FIELDS_PER_TURN = 25;

export class BuiltinPiiDetector implements PiiDetector {
  readonly name = 'built-in detectors (validating patterns and check digits)';

  constructor(private readonly detectValue: PiiRules['detectValue']) {}

  async detect(fields: readonly FieldSample[]): Promise<ValueEvidence[]> {
    const evidence: ValueEvidence[] = [];
    for (const [index, field] of fields.entries()) {
      if (index > 0 && index % FIELDS_PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
      const byDetector = new Map<string, ValueEvidence>();
      for (const value of field.values) {
        for (const hit of this.detectValue(value)) {
          const key = `${hit.type}\u0000${hit.code}\u0000${hit.region}`;
          const entry = byDetector.get(key) ?? { field: field.path, type: hit.type, code: hit.code, resourceKey: `pii.value.${hit.code}`, region: hit.region, hits: 0, confidenceSum: 0 };
          entry.hits += 1;
          entry.confidenceSum += hit.confidence;
          byDetector.set(key, entry);
        }
      }
      evidence.push(...byDetector.values());
    }
    return evidence;
  }
}
