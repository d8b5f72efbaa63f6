// Ingestion: the event bus (Kafka, or the embedded event store when unset) and the size of one ingest call.
import { z } from 'zod';
import type { HttpVariables } from './http.js';
import { byteSize } from './values.js';

export const ingestionVariables = z.object({
  KAFKA_BROKERS: z
    .string()
    .regex(/^[^,\s]+(,[^,\s]+)*$/, 'must be host:port pairs separated by commas')
    .optional()
    .describe('Kafka brokers (host:port,...). When unset, events go to the embedded event store in PostgreSQL.'),
  KAFKA_CLIENT_ID: z.string().min(1).default('data-platform-gateway').describe('Kafka client id.'),
  KAFKA_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5_000).describe('Longest an ingest call waits for Kafka, retries included.'),
  INGEST_MAX_BATCH: z.coerce.number().int().min(1).max(100_000).default(5_000).describe('Most events one ingest call may carry.'),
  INGEST_BODY_LIMIT: byteSize.default(10 * 1024 * 1024).describe('Largest ingest request body (e.g. 10mb).'),
});

export type IngestionVariables = z.infer<typeof ingestionVariables>;

export function ingestionSettings(e: IngestionVariables) {
  return {
    maxBatch: e.INGEST_MAX_BATCH,
    bodyLimitBytes: e.INGEST_BODY_LIMIT,
    ...(e.KAFKA_BROKERS ? { kafka: { brokers: e.KAFKA_BROKERS.split(','), clientId: e.KAFKA_CLIENT_ID, timeoutMs: e.KAFKA_TIMEOUT_MS } } : {}),
  };
}

/** Limits that must agree with the JSON limits; every problem is reported at once. */
export function ingestionProblems(e: IngestionVariables & Pick<HttpVariables, 'JSON_MAX_ARRAY_LENGTH'>): string[] {
  const problems: string[] = [];
  if (e.INGEST_MAX_BATCH > e.JSON_MAX_ARRAY_LENGTH) {
    problems.push(
      `INGEST_MAX_BATCH: ${e.INGEST_MAX_BATCH} is larger than JSON_MAX_ARRAY_LENGTH (${e.JSON_MAX_ARRAY_LENGTH}); an ingest batch is a JSON array, ` +
        'so no call could carry that many events. Lower INGEST_MAX_BATCH or raise JSON_MAX_ARRAY_LENGTH.',
    );
  }
  return problems;
}
