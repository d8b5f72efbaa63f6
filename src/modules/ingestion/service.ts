// Ingestion rules: which dataset accepts events, where they go, and what counts as accepted.
import { randomUUID } from 'node:crypto';
import { GatewayError } from '../../errors.js';
import { buildIngestMessage, type EventBus } from '../../platform/event-bus/event-bus.js';
import type { DatasetService } from '../datasets/service.js';
import type { JsonObject } from '../datasets/types.js';
import type { IngestionCounters } from './counters.js';

export interface IngestionServiceOptions {
  /** Most events one request may carry. */
  maxBatch: number;
}

export interface IngestResult {
  message: string;
  accepted: number;
  processed: number;
  duplicates: number;
  failed: number;
}

function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function createIngestionService(datasets: DatasetService, bus: EventBus, counters: IngestionCounters, options: IngestionServiceOptions) {
  return {
    busName: bus.name,

    async ingest(datasetId: string, data: unknown, msgid: string | null | undefined): Promise<IngestResult> {
      const invalid = (message: string) => new GatewayError('DATA_INGESTION_INVALID_INPUT', message);
      if (Array.isArray(data)) {
        if (data.length === 0) throw invalid('data is an empty array: give one event object or an array of them');
        if (data.length > options.maxBatch) throw invalid(`data holds ${data.length} events; at most ${options.maxBatch} fit in one request`);
        const index = data.findIndex((event) => !isObject(event));
        if (index >= 0) throw invalid(`data/${index} is not a JSON object`);
      } else if (!isObject(data)) {
        throw invalid('data must be one event object or an array of event objects');
      }

      const key = datasetId.trim();
      // Ingestion's lookups are 404s with responseCode BAD_REQUEST, as the contract shows them.
      const asIngestionError = { kind: 'BAD_REQUEST', httpStatus: 404 } as const;
      const dataset = await datasets.get(key, { stage: 'live' }).catch((error: unknown) => {
        if (error instanceof GatewayError && error.code === 'DATASET_NOT_FOUND') {
          counters.recordRejected(key);
          throw new GatewayError('DATASET_NOT_FOUND', `Dataset with id/alias name '${key}' not found`, asIngestionError);
        }
        throw error;
      });
      if (dataset.status !== 'Live') {
        counters.recordRejected(key);
        throw new GatewayError('DATASET_NOT_FOUND', `Dataset '${key}' is ${dataset.status}; only a Live dataset accepts events`, asIngestionError);
      }
      const flatTopic = dataset.datasetConfig.entry_topic;
      const topic = dataset.entryTopic || (typeof flatTopic === 'string' ? flatTopic : '');
      if (!topic) {
        counters.recordRejected(key);
        throw new GatewayError('TOPIC_NOT_FOUND', `Entry topic not found for dataset '${key}'`);
      }

      const message = buildIngestMessage(dataset, topic, data as JsonObject | JsonObject[], msgid || randomUUID());
      const outcome = await bus.publish(message, dataset);
      counters.recordAccepted(dataset.datasetId, outcome);
      return {
        message: 'Data ingested successfully',
        accepted: outcome.accepted,
        processed: outcome.processed ?? outcome.accepted,
        duplicates: outcome.duplicates ?? 0,
        failed: outcome.failed ?? 0,
      };
    },

    counts: (datasetId: string) => counters.snapshot(datasetId),
  };
}

export type IngestionService = ReturnType<typeof createIngestionService>;
