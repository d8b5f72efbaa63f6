// Ingestion rules: which dataset accepts events, where they go, and what counts as accepted.
import { randomUUID } from 'node:crypto';
import DataLoader from 'dataloader';
import { GatewayError } from '../../errors.js';
import { buildIngestMessage, type EventBus } from '../../platform/event-bus/event-bus.js';
import { pathDeeperThan } from '../../validation/json-depth.js';
import { datasetIdLengthProblem } from '../datasets/index.js';
import type { DatasetService, JsonObject, Stage } from '../datasets/index.js';
import { validationProblem } from './pipeline.js';
import type { IngestionCounters, IngestionCounts } from './counters.js';
import type { IngestResult } from './outcome.js';
import type { SystemEventsRecorder } from './system-events.js';
import { isObject } from '../../validation/json-object.js';

export interface IngestionServiceOptions {
  /** Most events one request may carry. */
  maxBatch: number;
  /** Counts what each processing stage made of the events (the embedded system-events). */
  systemEvents?: Pick<SystemEventsRecorder, 'record'>;
}

/** Deepest nesting of one event, as the PII service bounds sample records: deeper documents
 * overflowed the stack on their way to the store (a 500) instead of being refused. */
const MAX_EVENT_DEPTH = 32;
/** Longest msgid, for both transports (REST's body schema says it too). */
export const MAX_MSGID_LENGTH = 256;

/** Path segments of the first string or key holding a NUL, which PostgreSQL text and jsonb cannot
 * hold; undefined when there is none. Called on depth-checked data only. Segments are built only
 * on the way out of a hit, so a clean batch costs one walk and no allocation per value. */
function nulSegments(value: unknown): string[] | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? [] : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const found = nulSegments(value[index]);
      if (found) return [String(index), ...found];
    }
    return undefined;
  }
  // Object.keys, not Object.entries: no pair allocated per member of every event.
  const members = value as Record<string, unknown>;
  for (const key of Object.keys(members)) {
    if (key.includes('\u0000')) return [key];
    const found = nulSegments(members[key]);
    if (found) return [key, ...found];
  }
  return undefined;
}

/** `data/1/deep/k` as a message names it, with NULs written as \u0000 and long paths cut. */
function dataPath(segments: readonly string[]): string {
  return ['data', ...segments.map((segment) => segment.replaceAll('~', '~0').replaceAll('/', '~1'))].join('/').replaceAll('\u0000', '\\u0000').slice(0, 200);
}

export function createIngestionService(datasets: DatasetService, bus: EventBus, counters: IngestionCounters, options: IngestionServiceOptions) {
  return {
    async ingest(datasetId: string, data: unknown, msgid: string | null | undefined): Promise<IngestResult> {
      const invalid = (message: string) => new GatewayError('DATA_INGESTION_INVALID_INPUT', message);
      if (Array.isArray(data)) {
        if (data.length === 0) throw invalid('data is an empty array: give one event object or an array of them');
        if (data.length > options.maxBatch) throw invalid(`data holds ${data.length} events; at most ${options.maxBatch} fit in one request (INGEST_MAX_BATCH)`);
        const index = data.findIndex((event) => !isObject(event));
        if (index >= 0) throw invalid(`data/${index} is not a JSON object`);
      } else if (!isObject(data)) {
        throw invalid('data must be one event object or an array of event objects');
      }
      // Refused here, for both transports and both buses, rather than failing in the store.
      const tooDeep = pathDeeperThan(data, MAX_EVENT_DEPTH + (Array.isArray(data) ? 1 : 0));
      if (tooDeep !== undefined) throw invalid(`data${tooDeep.slice(0, 200)} is nested deeper than ${MAX_EVENT_DEPTH} levels`);
      const nul = nulSegments(data);
      if (nul) throw invalid(`${dataPath(nul)} holds a NUL character (\\u0000), which cannot be stored`);
      if (msgid) {
        if (msgid.length > MAX_MSGID_LENGTH) throw invalid(`msgid is ${msgid.length} characters long; at most ${MAX_MSGID_LENGTH} are allowed`);
        if (msgid.includes('\u0000')) throw invalid('msgid holds a NUL character (\\u0000), which cannot be stored');
      }

      // No dataset has such an id, and the counters keep every refused id.
      const idProblem = datasetIdLengthProblem(datasetId);
      if (idProblem) throw invalid(`datasetId ${idProblem}`);
      const key = datasetId.trim();
      const notFound = async () => {
        await counters.recordRejected(key);
        return new GatewayError('DATASET_NOT_FOUND', `Dataset with id/alias name '${key.replaceAll('\u0000', '\\u0000')}' not found`);
      };
      // No dataset id holds a NUL (the database cannot store one): not found, without asking it.
      if (key.includes('\u0000')) throw await notFound();
      const dataset = await datasets.get(key, { stage: 'live' }).catch(async (error: unknown) => {
        throw error instanceof GatewayError && error.code === 'DATASET_NOT_FOUND' ? await notFound() : error;
      });
      if (dataset.status !== 'Live') {
        await counters.recordRejected(key);
        throw new GatewayError('DATASET_NOT_FOUND', `Dataset '${key}' is ${dataset.status}; only a Live dataset accepts events`);
      }
      const flatTopic = dataset.datasetConfig.entry_topic;
      const topic = dataset.entryTopic || (typeof flatTopic === 'string' ? flatTopic : '');
      if (!topic) {
        await counters.recordRejected(key);
        throw new GatewayError('TOPIC_NOT_FOUND', `Entry topic not found for dataset '${key}'`);
      }

      const message = buildIngestMessage(dataset, topic, data as JsonObject | JsonObject[], msgid || randomUUID());
      const startedAt = performance.now();
      const outcome = await bus.publish(message, dataset, counters.tally);
      await counters.recordAccepted(dataset.datasetId, outcome);
      options.systemEvents?.record(dataset, outcome, performance.now() - startedAt);
      // Only a bus that processed the events in the call knows what became of them; Kafka's
      // acknowledgement says they are queued, and nothing about their processing.
      if (outcome.processed === undefined) return { outcome: 'queued', accepted: outcome.accepted, processed: null, duplicates: null, failed: null, refused: null };
      return {
        outcome: 'processed',
        accepted: outcome.accepted,
        processed: outcome.processed,
        duplicates: outcome.duplicates ?? 0,
        failed: outcome.failed ?? 0,
        refused: outcome.refused ?? [],
      };
    },

    /**
     * Why an event would not pass a dataset's schema, its Live version or its draft (the original's
     * schema check), or undefined when it would: the same validator ingestion runs, whether or not
     * the dataset turns it on.
     */
    async checkEvent(datasetId: string, stage: Stage, event: unknown): Promise<string | undefined> {
      const invalid = (message: string) => new GatewayError('SCHEMA_VALIDATOR_INVALID_INPUT', message);
      const idProblem = datasetIdLengthProblem(datasetId);
      if (idProblem) throw invalid(`datasetId ${idProblem}`);
      if (!isObject(event)) throw invalid('event must be a JSON object');
      const tooDeep = pathDeeperThan(event, MAX_EVENT_DEPTH);
      if (tooDeep !== undefined) throw invalid(`event${tooDeep.slice(0, 200)} is nested deeper than ${MAX_EVENT_DEPTH} levels`);
      const dataset = await datasets.get(datasetId, { stage }).catch((error: unknown) => {
        if (error instanceof GatewayError && error.code === 'DATASET_NOT_FOUND') {
          throw new GatewayError('DATASET_NOT_EXISTS', `Dataset does not exists with id:${datasetId} (${stage === 'live' ? 'no Live version' : 'no draft'})`);
        }
        throw error;
      });
      return validationProblem(event, { ...dataset, validationConfig: { ...dataset.validationConfig, validate: true } });
    },

    /** The dataset's counters as the shared store holds them: every gateway on the database answers the same. */
    counts: (datasetId: string) => counters.snapshot(datasetId),

    /** Every dataset's counters as metric series (the metrics sampler's shared series). */
    sharedSeries: () => counters.sharedSeries(),

    /** A per-request batch of `counts` (a list page's `ingestion` fields cost one statement). */
    createCountsLoader: () => new DataLoader<string, IngestionCounts>((datasetIds) => counters.snapshots(datasetIds), { maxBatchSize: 500 }),
  };
}

export type IngestionService = ReturnType<typeof createIngestionService>;
