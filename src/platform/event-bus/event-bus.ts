// Where ingested events go: Kafka at scale, the embedded event store (PostgreSQL) by default.
// Both receive the same message, in the original's shape, and resolve only once it is durable.
import type { DatasetRecord, JsonObject } from '../dataset.js';

export interface IngestMessage {
  /** The dataset's entry topic. */
  topic: string;
  /** Kafka message key: the request's msgid, so a retried request lands on the same partition. */
  key: string;
  headers: Record<string, string>;
  /** `{event, obsrv_meta, dataset, msgid}` for one event; the batch under the extraction key otherwise. */
  value: JsonObject;
}

export interface PublishOutcome {
  /** Events the bus took responsibility for. */
  accepted: number;
  /** Embedded store only: what processing made of them. */
  processed?: number;
  duplicates?: number;
  failed?: number;
  /** Embedded store only: the events each processing stage refused (the platform's system-events count them). */
  refusedBy?: Partial<Record<RefusingStage, number>>;
  /** Embedded store only: each event not stored, in the order of the request. */
  refused?: RefusedEvent[];
  /** The store wrote the request's tally (PublishTally) with its events: nothing is left to count. */
  tallied?: boolean;
}

/**
 * A count of each request's outcome kept in the database the embedded store writes to (the
 * ingestion counters, handed over by their module): the store writes it in the statement that
 * stores the events, so the answer waits for one round trip and there is never a count without its
 * events, nor events without their count. A bus outside the database (Kafka) ignores it.
 */
export interface PublishTally {
  /** A data-modifying statement (one part of the store's WITH) adding the outcomes held as a JSON array by the parameter named (`$7`). */
  statement(parameter: string): string;
  /** One element of that array: one request's outcome. */
  value(datasetId: string, outcome: PublishOutcome): unknown;
}

/** One event of a request that processing did not store, and why. */
export interface RefusedEvent {
  /** Its position in the request's batch (0 for a single event). */
  index: number;
  /** Its position in that event's own batch, when the dataset splits batch events (is_batch_event). */
  item?: number;
  stage: RefusingStage;
  reason: string;
}

/** An event as extraction found it, with where it was in the request. */
export interface ExtractedEvent {
  event: unknown;
  index: number;
  item?: number;
}

/** The embedded store's stages that can refuse an event. */
export type RefusingStage = 'extraction' | 'validation' | 'dedup' | 'master';

export interface EventBus {
  readonly name: string;
  /** Resolves once the message is durable (broker ack with acks=all, or the database commit). */
  publish(message: IngestMessage, dataset: DatasetRecord, tally?: PublishTally): Promise<PublishOutcome>;
  close(): Promise<void>;
  /** Producer state for the metrics, where the bus has a producer (Kafka). */
  stats?(): EventBusStats;
  /** Asks the bus outside the gateway whether it answers (Kafka: its cluster); rejects with the reason. The embedded store has none: the database's own check covers it. */
  check?(): Promise<void>;
}

export interface EventBusStats {
  /** Messages waiting for the next produce call. */
  queuedMessages: number;
  /** Produce calls sent and not yet answered. */
  inFlightBatches: number;
  /** Produce calls refused or timed out since start-up. */
  failedBatches: number;
  connected: boolean;
}

/**
 * The processing rules the embedded event store applies to each message: the ingestion module's
 * pipeline (src/modules/ingestion/pipeline.ts), handed over by src/server.ts so that the platform
 * never imports a module. Kafka leaves processing to the pipeline behind it and needs none.
 */
export interface EventProcessing {
  /** The events a message carries (the single event, or the batch under the extraction key), each with its position. */
  extractEvents(value: JsonObject, dataset: DatasetRecord): ExtractedEvent[];
  /** The dataset's schema check: undefined when an event passes, else the reason. */
  eventValidator(dataset: DatasetRecord): (event: JsonObject) => string | undefined;
  /** The dedup key of an event as text, when the dataset drops duplicates and the event has one. */
  dedupKeyOf(event: JsonObject, dataset: DatasetRecord): string | undefined;
  dedupPeriodSeconds(dataset: DatasetRecord): number;
  /** Event time (epoch ms) from the dataset's timestamp key; `fallback` when it has none. */
  eventTime(event: JsonObject, dataset: DatasetRecord, fallback: number): number;
  /** The record key of a master dataset's event. */
  masterKeyOf(event: JsonObject, dataset: DatasetRecord): string | undefined;
  /** The master records to look up for each event, and where the found record goes. */
  denormFields(dataset: DatasetRecord): { masterId: string; key: string; outField: string }[];
  /** The value at a dotted path of an event. */
  valueAt(event: JsonObject, path: string): unknown;
}

/** The extraction key a batch travels under, and the key its msgid is written to (the original's defaults). */
export function batchKeys(dataset: DatasetRecord): { extractionKey: string; dedupKey: string } {
  const extraction = dataset.extractionConfig ?? {};
  const dedup = (extraction.dedup_config ?? {}) as JsonObject;
  const extractionKey = typeof extraction.extraction_key === 'string' && extraction.extraction_key ? extraction.extraction_key : 'events';
  const dedupKey = typeof dedup.dedup_key === 'string' && dedup.dedup_key ? dedup.dedup_key : 'id';
  return { extractionKey, dedupKey };
}

/** The message the original sends for one request (reference §2.1). */
export function buildIngestMessage(dataset: DatasetRecord, topic: string, data: JsonObject | JsonObject[], msgid: string, now = Date.now()): IngestMessage {
  const obsrvMeta = { syncts: now, flags: {}, timespans: {}, error: {}, source: { connector: 'api', connectorInstance: 'api' } };
  let value: JsonObject;
  if (Array.isArray(data)) {
    const { extractionKey, dedupKey } = batchKeys(dataset);
    value = { obsrv_meta: obsrvMeta, dataset: dataset.datasetId, msgid, [extractionKey]: data, [dedupKey]: msgid };
  } else {
    value = { event: data, obsrv_meta: obsrvMeta, dataset: dataset.datasetId, msgid };
  }
  return { topic, key: msgid, headers: { dataset_id: dataset.datasetId, msgid, 'content-type': 'application/json' }, value };
}
