// Seed helpers for dataset tests: a valid v2 definition in one call, a dataset in any lifecycle
// state in one line (through the API, as a user would get there), and v1 Live rows written with SQL
// (the API never writes v1, but old records exist and must be read faithfully).
import { envelope } from './api.js';
import type { TestGateway } from './gateway.js';

export type Json = Record<string, any>;

/** States a test can ask for; `LiveWithDraft` is a Live version 1 with a Draft version 2 beside it. */
export type SeedState = 'Draft' | 'ReadyToPublish' | 'Live' | 'Retired' | 'LiveWithDraft';

export const API = {
  import: 'api.datasets.import',
  read: 'api.datasets.read',
  list: 'api.datasets.list',
  copy: 'api.datasets.copy',
  transition: 'api.datasets.status-transition',
} as const;

export const SCHEMA_2020 = 'https://json-schema.org/draft/2020-12/schema';

function isPlainObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Objects merge key by key; anything else (arrays included) in `over` replaces what `base` has. */
export function deepMerge(base: Json, over: Json): Json {
  const merged: Json = { ...base };
  for (const [key, value] of Object.entries(over)) {
    merged[key] = isPlainObject(value) && isPlainObject(base[key]) ? deepMerge(base[key], value) : value;
  }
  return merged;
}

/**
 * A complete, valid v2 definition (contract 2.1) of an event dataset, or of a master dataset keyed
 * by `userid` when `overrides.type` is "master". `overrides` is merged in deeply (arrays replace).
 */
export function definition(id: string, overrides: Json = {}): Json {
  const master = overrides.type === 'master';
  const base: Json = {
    id,
    dataset_id: id,
    name: `Dataset ${id}`,
    type: 'event',
    api_version: 'v2',
    tags: ['test'],
    data_schema: {
      $schema: SCHEMA_2020,
      type: 'object',
      properties: {
        id: { type: 'string', arrival_format: 'text', data_type: 'string' },
        ts: { type: 'string', arrival_format: 'text', data_type: 'date-time' },
        userid: { type: 'string', arrival_format: 'text', data_type: 'string' },
        amount: { type: 'number', arrival_format: 'number', data_type: 'number' },
      },
      additionalProperties: true,
    },
    extraction_config: {
      is_batch_event: false,
      extraction_key: 'events',
      dedup_config: { drop_duplicates: false, dedup_key: 'id', dedup_period: 604800 },
    },
    validation_config: { validate: true, mode: 'Strict' },
    dedup_config: { drop_duplicates: true, dedup_key: 'id', dedup_period: 604800 },
    denorm_config: { cache_db_host: 'localhost', cache_db_port: 6379, denorm_fields: [] },
    router_config: { topic: id },
    dataset_config: {
      keys_config: { data_key: master ? 'userid' : '', partition_key: '', timestamp_key: 'ts' },
      indexing_config: { olap_store_enabled: true, lakehouse_enabled: false, cache_enabled: master },
      cache_config: { cache_db_host: 'localhost', cache_db_port: 6379, cache_db: 0 },
      file_upload_path: [],
    },
    transformations_config: [],
    connectors_config: [],
    sample_data: {},
  };
  return deepMerge(base, overrides);
}

/** A denorm field of an event dataset that enriches events from master `masterId`. */
export function denormField(masterId: string, outField = 'user'): Json {
  return { denorm_key: 'userid', dataset_id: masterId, denorm_out_field: outField };
}

/** A transformation and a connector instance that pass import's per-item checks. */
export const GOOD_TRANSFORMATION = {
  field_key: 'email_masked',
  transformation_function: { type: 'mask', expr: 'email', datatype: 'string', category: 'pii' },
  mode: 'Strict',
};
export const GOOD_CONNECTOR = { id: 'kafka-in-1', connector_id: 'kafka-connector-1.0.0', connector_config: { topic: 'in' }, version: 'v2' };

// ---------------------------------------------------------------------------------------------
// Calls through the REST API that must succeed (a failure throws with the whole body, so a broken
// arrangement is told apart from a failing assertion).

async function ok(gw: TestGateway, what: string, call: Promise<{ status: number; body: any }>): Promise<any> {
  const response = await call;
  if (response.status !== 200) throw new Error(`seed step "${what}" failed with ${response.status}: ${JSON.stringify(response.body)}`);
  return response.body.result;
}

export function importDataset(gw: TestGateway, def: Json, query = ''): Promise<any> {
  return ok(gw, `import ${def.dataset_id}`, gw.http.post(`/v2/datasets/import${query}`).send(envelope(API.import, def)));
}

export function transition(gw: TestGateway, id: string, status: string): Promise<any> {
  return ok(gw, `${status} ${id}`, gw.http.post('/v2/datasets/status-transition').send(envelope(API.transition, { dataset_id: id, status })));
}

export function editDraft(gw: TestGateway, id: string): Promise<any> {
  return ok(gw, `edit ${id}`, gw.http.get(`/v2/datasets/read/${encodeURIComponent(id)}?mode=edit`));
}

/**
 * Puts dataset `id` in `state` through the API: import (Draft), then ReadyToPublish, Live, Retired;
 * LiveWithDraft is Live plus a read with mode=edit (a Draft of version 2).
 */
export async function seedDataset(gw: TestGateway, id: string, state: SeedState, overrides: Json = {}): Promise<void> {
  await importDataset(gw, definition(id, overrides));
  if (state === 'Draft') return;
  await transition(gw, id, 'ReadyToPublish');
  if (state === 'ReadyToPublish') return;
  await transition(gw, id, 'Live');
  if (state === 'Retired') await transition(gw, id, 'Retired');
  if (state === 'LiveWithDraft') await editDraft(gw, id);
}

/** A Live master dataset keyed by `userid`. */
export function seedMaster(gw: TestGateway, id: string, state: SeedState = 'Live'): Promise<void> {
  return seedDataset(gw, id, state, { type: 'master' });
}

// ---------------------------------------------------------------------------------------------
// v1 records, written with SQL.

/** A flat v1 dataset_config with the contract's names, in the order the contract lists them. */
export function flatConfig(overrides: Json = {}): Json {
  return {
    data_key: '',
    timestamp_key: 'obsrv_meta.syncts',
    exclude_fields: ['debug'],
    entry_topic: 'local.ingest',
    cache_db_host: 'cache.internal',
    cache_db_port: 6380,
    index_data: true,
    cache_db: 7,
    file_upload_path: ['uploads/old'],
    ...overrides,
  };
}

export interface V1LiveOptions {
  apiVersion?: 'v1' | null;
  type?: 'event' | 'master';
  status?: 'Live' | 'Retired';
  version?: number;
  /** The flat config as an object (stored as JSON.stringify of it) ... */
  datasetConfig?: Json;
  /** ... or as exact JSON text. */
  datasetConfigText?: string;
  name?: string;
}

/** Inserts a v1 Live row (flat dataset_config) and returns the dataset_config text as stored. */
export async function insertV1Live(gw: TestGateway, id: string, options: V1LiveOptions = {}): Promise<string> {
  const type = options.type ?? 'event';
  const configText = options.datasetConfigText ?? JSON.stringify(options.datasetConfig ?? flatConfig(type === 'master' ? { data_key: 'userid' } : {}));
  const dataSchema = { $schema: SCHEMA_2020, type: 'object', properties: { id: { type: 'string' }, obsrv_meta: { type: 'object', properties: { syncts: { type: 'integer' } } } } };
  await gw.sql(
    `INSERT INTO datasets (dataset_id, stage, name, type, status, tags, version, version_key, api_version, data_schema,
       extraction_config, validation_config, dedup_config, denorm_config, router_config, dataset_config,
       transformations_config, connectors_config, sample_data, entry_topic, denorm_sources, created_by, updated_by,
       created_date, updated_date, published_date)
     VALUES ($1, 'live', $2, $3, $4, ARRAY['legacy'], $5, '1700000000000', $6, $7::json,
       $8::json, $9::json, $10::json, $11::json, $12::json, $13::json,
       '[]'::json, '[]'::json, '{}'::json, NULL, '{}', 'legacy-user', 'legacy-user',
       '2023-01-01T00:00:00Z', '2023-01-02T00:00:00Z', '2023-01-02T00:00:00Z')`,
    [
      id,
      options.name ?? `Legacy ${id}`,
      type,
      options.status ?? 'Live',
      options.version ?? 3,
      options.apiVersion === undefined ? 'v1' : options.apiVersion,
      JSON.stringify(dataSchema),
      JSON.stringify({ is_batch_event: false, extraction_key: 'events', dedup_config: { drop_duplicates: false, dedup_key: 'id', dedup_period: 604800 } }),
      JSON.stringify({ validate: true, mode: 'Strict' }),
      JSON.stringify({ drop_duplicates: false, dedup_key: 'id', dedup_period: 604800 }),
      JSON.stringify({ redis_db_host: 'cache.internal', redis_db_port: 6380, denorm_fields: [] }),
      JSON.stringify({ topic: id }),
      configText,
    ],
  );
  return configText;
}

// ---------------------------------------------------------------------------------------------
// What is stored, read with SQL.

export interface StoredVersion {
  stage: 'live' | 'draft';
  status: string;
  version: number;
  version_key: string;
  api_version: string | null;
  name: string;
  entry_topic: string | null;
  published: boolean;
  dataset_config: string;
  denorm_config: string | null;
  router_config: string | null;
  updated_date: string;
}

/** Every stored version of a dataset, live first; an empty list when nothing is stored. */
export async function storedVersions(gw: TestGateway, id: string): Promise<StoredVersion[]> {
  const rows = await gw.sql<StoredVersion>(
    `SELECT stage, status, version, version_key, api_version, name, entry_topic, published_date IS NOT NULL AS published,
            dataset_config::text AS dataset_config, denorm_config::text AS denorm_config, router_config::text AS router_config,
            updated_date::text AS updated_date
       FROM datasets WHERE dataset_id = $1 ORDER BY stage DESC`,
    [id],
  );
  return rows.rows;
}

/** The stored version of `stage`, which must exist. */
export async function storedVersion(gw: TestGateway, id: string, stage: 'live' | 'draft'): Promise<StoredVersion> {
  const found = (await storedVersions(gw, id)).find((row) => row.stage === stage);
  if (!found) throw new Error(`no ${stage} version of ${id} is stored`);
  return found;
}

/** (stage, status) of every stored version, e.g. [['live', 'Live'], ['draft', 'Draft']]. */
export async function storedStatuses(gw: TestGateway, id: string): Promise<[string, string][]> {
  return (await storedVersions(gw, id)).map((row) => [row.stage, row.status]);
}

/** A v2 JSON of `depth` nested objects: {"level": {"level": ... {"leaf": true}}}. */
export function nested(depth: number): Json {
  let value: Json = { leaf: true };
  for (let level = 0; level < depth; level += 1) value = { level: value };
  return value;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
