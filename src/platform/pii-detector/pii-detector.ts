// PII detection: the built-in detectors by default, or a downstream detector over HTTP (a Presidio
// analyzer) when PII_SERVICE_URL is set. A detector only reports what it sees in each field's
// values; the PII service combines that with field-name evidence, scores and decides.
import type { Config } from '../../config.js';
import type { FieldSample, ValueEvidence } from '../../modules/pii/types.js';
import { BuiltinPiiDetector } from './builtin.js';
import { PresidioPiiDetector } from './presidio.js';

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

export function createPiiDetector(settings: Config['pii']): PiiDetector {
  return settings.service ? new PresidioPiiDetector(settings.service) : new BuiltinPiiDetector();
}
