// The business rules around schema inference: what input is accepted and how far it may go. The
// algorithm itself (infer-schema.ts) is pure; both transports call `infer` here.
import { GatewayError } from '../../errors.js';
import { DATASET_ID_MAX_LENGTH } from '../datasets/index.js';
import { InferenceInputError, inferSchema } from './infer-schema.js';
import type { InferenceLimits, InferredSchema, InferSchemaInput } from './types.js';

/**
 * Defaults, sized so that the largest accepted call infers in well under a second (see
 * bench/schema-inference.ts): 10,000 samples, 20 levels of nesting, 2,000 distinct fields. The
 * request body limit (REQUEST_BODY_LIMIT) usually bounds a REST call sooner.
 */
export const SCHEMA_INFERENCE_LIMITS: Readonly<InferenceLimits> = Object.freeze({ maxSamples: 10_000, maxDepth: 20, maxFields: 2_000 });

function invalid(message: string): GatewayError {
  return new GatewayError('DATA_SCHEMA_INVALID_INPUT', message);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}

export function createSchemaInferenceService(limits: InferenceLimits = SCHEMA_INFERENCE_LIMITS) {
  return {
    infer({ samples, dataset }: InferSchemaInput): InferredSchema {
      if (dataset.trim() === '') throw invalid('dataset must name the dataset the samples belong to');
      // The samples are for a dataset, whose id can be no longer than a dataset id.
      if (dataset.length > DATASET_ID_MAX_LENGTH) throw invalid(`dataset must be at most ${DATASET_ID_MAX_LENGTH} characters`);
      if (samples.length === 0) throw invalid('samples must hold at least one event');
      if (samples.length > limits.maxSamples) {
        throw invalid(`samples holds ${samples.length} events; at most ${limits.maxSamples} are inferred from at once`);
      }
      const notObject = samples.findIndex((sample) => sample === null || typeof sample !== 'object' || Array.isArray(sample));
      if (notObject >= 0) {
        throw invalid(`sample #${notObject + 1} (index ${notObject}) must be a JSON object, not ${describe(samples[notObject])}`);
      }
      try {
        return inferSchema(samples, limits);
      } catch (error) {
        if (error instanceof InferenceInputError) throw invalid(error.message);
        throw error;
      }
    },
  };
}

export type SchemaInferenceService = ReturnType<typeof createSchemaInferenceService>;
