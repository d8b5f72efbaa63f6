// PII detection: a downstream detector (a Presidio analyzer), or the built-in detectors when unset, and the size of one analysis.
import { z } from 'zod';
import { byteSize, SECRET } from './values.js';

export const piiVariables = z.object({
  PII_SERVICE_URL: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe('Downstream PII detector (a Presidio analyzer). When unset, the built-in detectors run in process.'),
  PII_SERVICE_TOKEN: z.string().min(1).optional().describe('Sent to the PII detector as `Authorization: Bearer <token>`.').meta(SECRET),
  PII_SERVICE_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(10_000).describe('Longest one call to the PII detector may take.'),
  PII_MAX_RECORDS: z.coerce.number().int().min(1).max(100_000).default(1000).describe('Most records one PII analysis may carry.'),
  PII_MAX_BYTES: byteSize.default(1024 * 1024).describe('Largest serialised size of the records of one PII analysis.'),
  PII_MIN_SCORE: z.coerce.number().min(0).max(1).default(0.5).describe('Lowest score (0 to 1) a field is reported with as personal data.'),
});

export type PiiVariables = z.infer<typeof piiVariables>;

export function piiSettings(e: PiiVariables) {
  return {
    maxRecords: e.PII_MAX_RECORDS,
    maxBytes: e.PII_MAX_BYTES,
    minScore: e.PII_MIN_SCORE,
    ...(e.PII_SERVICE_URL ? { service: { url: e.PII_SERVICE_URL, timeoutMs: e.PII_SERVICE_TIMEOUT_MS, ...(e.PII_SERVICE_TOKEN ? { token: e.PII_SERVICE_TOKEN } : {}) } } : {}),
  };
}
