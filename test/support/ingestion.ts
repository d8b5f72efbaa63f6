// Helpers for ingestion tests: values no other test uses, what the embedded event store holds for
// one request (read with SQL), and the gateway's ingestion counters (GraphQL ingestionStats, the
// only place they are shown).
import { randomUUID } from 'node:crypto';
import { expect } from '@jest/globals';
import { graphql } from './api.js';
import { SCHEMA_2020, type Json } from './datasets.js';
import type { TestGateway } from './gateway.js';
import type { DatasetRecord } from '../../src/platform/dataset.js';

export const INGESTED_MESSAGE = 'Data ingested successfully';

let sequence = 0;
/** A value no other test uses (msgids, event ids). */
export function unique(label: string): string {
  sequence += 1;
  return `${label}-${sequence}-${randomUUID().slice(0, 8)}`;
}

export interface StoredEvent {
  dataset_id: string;
  msgid: string;
  payload: Json;
  event_ms: number;
  arrival_ms: number;
}

/** The events stored for one request, in the order they were sent. */
export async function storedEvents(gw: TestGateway, msgid: string): Promise<StoredEvent[]> {
  const rows = await gw.sql<StoredEvent>(
    `SELECT dataset_id, msgid, payload, (extract(epoch FROM event_time) * 1000)::float8 AS event_ms,
            (extract(epoch FROM arrival_time) * 1000)::float8 AS arrival_ms
       FROM events WHERE msgid = $1 ORDER BY id`,
    [msgid],
  );
  return rows.rows;
}

export interface FailedEvent {
  dataset_id: string;
  stage: string;
  reason: string;
  payload: unknown;
}

/** The events of one request kept as failed, in the order they were sent. */
export async function failedEvents(gw: TestGateway, msgid: string): Promise<FailedEvent[]> {
  const rows = await gw.sql<FailedEvent>('SELECT dataset_id, stage, reason, payload FROM failed_events WHERE msgid = $1 ORDER BY id', [msgid]);
  return rows.rows;
}

/** Row counts of every event-store table, to prove a refused request wrote nothing. */
export async function storeCounts(gw: TestGateway): Promise<Record<string, number>> {
  const rows = await gw.sql<Record<string, number>>(
    `SELECT (SELECT count(*)::int FROM events) AS events, (SELECT count(*)::int FROM failed_events) AS failed_events,
            (SELECT count(*)::int FROM event_dedup) AS event_dedup, (SELECT count(*)::int FROM master_records) AS master_records`,
  );
  return rows.rows[0]!;
}

/** This gateway's ingestion counters for one dataset. */
export async function ingestionStats(gw: TestGateway, datasetId: string): Promise<Json> {
  const response = await graphql(gw, 'query Stats($id: ID!) { ingestionStats(datasetId: $id) { datasetId requests received processed duplicates failed rejectedRequests } }', { id: datasetId });
  expect(response.errors).toBeUndefined();
  return response.data!.ingestionStats as Json;
}

/** A schema of id (required), ts and amount (a number), and nothing else. */
export const STRICT_SCHEMA = {
  $schema: SCHEMA_2020,
  type: 'object',
  properties: {
    id: { type: 'string', arrival_format: 'text', data_type: 'string' },
    ts: { type: 'string', arrival_format: 'text', data_type: 'date-time' },
    amount: { type: 'number', arrival_format: 'number', data_type: 'number' },
  },
  required: ['id'],
  additionalProperties: false,
};

/** Events of `size` characters each, `count` of them (for body-size limits). */
export function largeEvents(count: number, size: number): Json[] {
  return Array.from({ length: count }, (_, n) => ({ id: unique(`large${n + 1}`), note: 'x'.repeat(size) }));
}

/** A Live dataset record as the stores take it, for tests that call a store or a bus directly (`overrides` replace fields). */
export function liveDatasetRecord(datasetId: string, overrides: Partial<DatasetRecord> = {}): DatasetRecord {
  return {
    datasetId,
    stage: 'live',
    name: datasetId,
    type: 'event',
    status: 'Live',
    tags: [],
    version: 1,
    versionKey: '1700000000000',
    apiVersion: 'v2',
    dataSchema: { type: 'object', properties: { id: { type: 'string' } } },
    extractionConfig: { is_batch_event: false, extraction_key: 'records', dedup_config: { drop_duplicates: false, dedup_key: 'batch_msgid', dedup_period: 604800 } },
    validationConfig: { validate: false, mode: 'Strict' },
    dedupConfig: { drop_duplicates: true, dedup_key: 'id', dedup_period: 604800 },
    denormConfig: null,
    routerConfig: { topic: datasetId },
    datasetConfig: { keys_config: { data_key: '', partition_key: '', timestamp_key: 'ts' } },
    transformationsConfig: [],
    connectorsConfig: [],
    sampleData: null,
    entryTopic: `${datasetId}.ingest`,
    denormSources: [],
    createdBy: 'test',
    updatedBy: 'test',
    createdDate: new Date(),
    updatedDate: new Date(),
    publishedDate: new Date(),
    alias: null,
    ...overrides,
  };
}
