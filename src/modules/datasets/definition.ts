// A dataset definition in the domain's names: its rules (the schema import and drafts are checked
// against), the defaults the original fills in (reference §0.10) and the v1 -> v2 conversion of a
// flat datasetConfig. The document format's names are src/platform/dataset-document.ts's business.
import type { DatasetRecord, DatasetType, JsonObject } from './types.js';
import { isObject } from '../../validation/json-object.js';
import { withCacheNames, withDocumentNames } from '../../platform/dataset-document.js';

export { withCacheNames };

export const DEFAULT_ENTRY_TOPIC = 'ingest';
const DEFAULT_CACHE_HOST = 'localhost';
const DEFAULT_CACHE_PORT = 6379;
export const DEDUP_PERIOD_SECONDS = 604_800;

/** What a new dataset's id may be (import, copy): it names topics and the queryable relation. */
export const DATASET_ID_MAX_LENGTH = 200;
export const DATASET_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]*$';
const DATASET_ID_REGEX = new RegExp(DATASET_ID_PATTERN);

/**
 * Why `id` cannot name any dataset by its length (empty, or longer than a new one may be), or
 * undefined: the one length rule of a dataset id wherever one is given, so no transport needs its own.
 */
export function datasetIdLengthProblem(id: string): string | undefined {
  if (id.length === 0) return 'must not be empty';
  return id.length > DATASET_ID_MAX_LENGTH ? `is ${id.length} characters long; at most ${DATASET_ID_MAX_LENGTH} are allowed` : undefined;
}

/** Why `id` cannot name a new dataset, or undefined when it can. */
export function datasetIdProblem(id: string): string | undefined {
  if (id.length === 0 || id.length > DATASET_ID_MAX_LENGTH) return `must be 1 to ${DATASET_ID_MAX_LENGTH} characters long`;
  return DATASET_ID_REGEX.test(id) ? undefined : 'must start with a letter or digit and hold only letters, digits, ".", "_" and "-"';
}

const stringOrEmpty = { type: 'string', maxLength: 1000 };
const dedup = {
  type: 'object',
  properties: {
    drop_duplicates: { type: 'boolean' },
    dedup_key: stringOrEmpty,
    dedup_period: { type: 'integer', minimum: 0 },
  },
  additionalProperties: false,
  if: { properties: { drop_duplicates: { const: true } }, required: ['drop_duplicates'] },
  then: { required: ['dedup_key'], properties: { dedup_key: { type: 'string', minLength: 1 } } },
};

const nestedDatasetConfig = {
  type: 'object',
  properties: {
    keys_config: {
      type: 'object',
      properties: { data_key: stringOrEmpty, partition_key: stringOrEmpty, timestamp_key: stringOrEmpty, timestamp_format: stringOrEmpty },
      additionalProperties: false,
    },
    indexing_config: {
      type: 'object',
      properties: { olap_store_enabled: { type: 'boolean' }, lakehouse_enabled: { type: 'boolean' }, cache_enabled: { type: 'boolean' } },
      additionalProperties: false,
    },
    cache_config: {
      type: 'object',
      properties: {
        cache_db_host: stringOrEmpty,
        cache_db_port: { type: ['integer', 'null'], minimum: 1, maximum: 65535 },
        cache_db: { type: 'integer', minimum: 0 },
      },
      additionalProperties: false,
    },
    file_upload_path: { type: 'array', items: { type: 'string' }, maxItems: 1000 },
  },
  required: ['keys_config', 'indexing_config'],
  additionalProperties: false,
};

const flatDatasetConfig = {
  type: 'object',
  properties: {
    data_key: stringOrEmpty,
    timestamp_key: stringOrEmpty,
    exclude_fields: { type: 'array', maxItems: 1000 },
    entry_topic: stringOrEmpty,
    cache_db_host: stringOrEmpty,
    cache_db_port: { type: ['integer', 'null'] },
    cache_db: { type: 'integer', minimum: 0 },
    index_data: { type: 'boolean' },
    file_upload_path: { type: 'array', items: { type: 'string' }, maxItems: 1000 },
  },
  additionalProperties: false,
};

/** A whole definition (after cache names are normalised). Depth and sizes are bounded. */
export const definitionSchema = {
  type: 'object',
  properties: {
    id: { type: 'string', minLength: 1, maxLength: 200 },
    datasetId: { type: 'string', minLength: 1, maxLength: DATASET_ID_MAX_LENGTH, pattern: DATASET_ID_PATTERN },
    name: { type: 'string', minLength: 1, maxLength: 300 },
    type: { type: 'string', enum: ['event', 'master'] },
    status: { type: 'string' },
    version: { type: 'integer', minimum: 1 },
    versionKey: { type: 'string' },
    apiVersion: { type: ['string', 'null'], enum: ['v1', 'v2', null] },
    dataVersion: { type: ['integer', 'null'] },
    tags: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 100 }, maxItems: 100 },
    dataSchema: {
      type: 'object',
      properties: {
        $schema: { type: 'string' },
        type: { const: 'object' },
        properties: { type: 'object', minProperties: 1 },
        additionalProperties: { type: ['boolean', 'object'] },
        required: { type: 'array', items: { type: 'string' } },
      },
      required: ['type', 'properties'],
      additionalProperties: false,
    },
    extractionConfig: {
      type: 'object',
      properties: {
        is_batch_event: { type: 'boolean' },
        extraction_key: stringOrEmpty,
        batch_id: stringOrEmpty,
        dedup_config: dedup,
      },
      additionalProperties: false,
      if: { properties: { is_batch_event: { const: true } }, required: ['is_batch_event'] },
      then: { required: ['extraction_key'], properties: { extraction_key: { type: 'string', minLength: 1 } } },
    },
    validationConfig: {
      type: 'object',
      properties: { validate: { type: 'boolean' }, mode: { type: 'string', enum: ['Strict', 'IgnoreNewFields'] } },
      additionalProperties: false,
    },
    dedupConfig: dedup,
    denormConfig: {
      type: 'object',
      properties: {
        cache_db_host: stringOrEmpty,
        cache_db_port: { type: ['integer', 'null'] },
        denorm_fields: { type: 'array', maxItems: 100 },
      },
      additionalProperties: false,
    },
    routerConfig: { type: 'object', properties: { topic: stringOrEmpty }, additionalProperties: false },
    datasetConfig: { type: 'object' },
    transformationsConfig: { type: 'array', maxItems: 1000 },
    connectorsConfig: { type: 'array', maxItems: 100 },
    sampleData: { type: 'object' },
    entryTopic: stringOrEmpty,
    createdBy: stringOrEmpty,
    updatedBy: stringOrEmpty,
    createdDate: { type: 'string' },
    updatedDate: { type: 'string' },
    publishedDate: { type: ['string', 'null'] },
    // What a read shows and the gateway sets (with setDatasetAlias): accepted back, not imported.
    alias: { type: ['string', 'null'] },
  },
  required: ['datasetId', 'name', 'type', 'dataSchema', 'datasetConfig'],
  additionalProperties: false,
  // The nested (v2) form for api_version v2; the flat (v1) form otherwise, which import converts.
  if: { properties: { apiVersion: { const: 'v2' } }, required: ['apiVersion'] },
  then: { properties: { datasetConfig: nestedDatasetConfig } },
  else: { properties: { datasetConfig: { anyOf: [nestedDatasetConfig, flatDatasetConfig] } } },
};

/** The same rules over a definition document (what import reads), so its messages name the document's fields. */
export const documentSchema = withDocumentNames(definitionSchema);

/** Sub-schemas for the items import checks one by one (dropping and listing the bad ones). */
export const denormFieldSchema = {
  type: 'object',
  properties: {
    denorm_key: { type: 'string', minLength: 1 },
    dataset_id: { type: 'string', minLength: 1 },
    denorm_out_field: { type: 'string', minLength: 1 },
    jsonata_expr: { type: 'string', minLength: 1 },
    cache_db: { type: 'integer' },
  },
  required: ['dataset_id', 'denorm_out_field'],
  // Either a key lookup or an expression, not both.
  oneOf: [
    { properties: { denorm_key: { type: 'string' } }, required: ['denorm_key'] },
    { properties: { jsonata_expr: { type: 'string' } }, required: ['jsonata_expr'] },
  ],
  additionalProperties: false,
};

export const transformationSchema = {
  type: 'object',
  properties: {
    field_key: { type: 'string', minLength: 1 },
    transformation_function: {
      type: 'object',
      properties: {
        type: { type: 'string', minLength: 1 },
        expr: { type: 'string', minLength: 1 },
        condition: { type: ['object', 'null'] },
        datatype: { type: 'string' },
        category: { type: 'string', enum: ['pii', 'transform', 'derived'] },
      },
      required: ['type', 'expr'],
      additionalProperties: false,
    },
    mode: { type: 'string', enum: ['Strict', 'Lenient'] },
    metadata: { type: 'object' },
  },
  required: ['field_key', 'transformation_function', 'mode'],
  additionalProperties: false,
};

export const connectorSchema = {
  type: 'object',
  properties: {
    id: { type: 'string', minLength: 1 },
    connector_id: { type: 'string', minLength: 1 },
    connector_config: { type: ['object', 'string'] },
    operations_config: { type: 'object' },
    version: { type: 'string' },
  },
  required: ['id', 'connector_id', 'connector_config'],
  additionalProperties: false,
};

export function isNestedDatasetConfig(config: JsonObject): boolean {
  return 'keys_config' in config || 'indexing_config' in config;
}

/** The nested v2 datasetConfig for a flat v1 one, and the flat keys that have no v2 place. */
export function convertFlatDatasetConfig(flat: JsonObject, type: DatasetType): { config: JsonObject; dropped: string[] } {
  const config: JsonObject = {
    keys_config: {
      data_key: typeof flat.data_key === 'string' ? flat.data_key : '',
      partition_key: '',
      timestamp_key: typeof flat.timestamp_key === 'string' ? flat.timestamp_key : '',
    },
    indexing_config: { olap_store_enabled: true, lakehouse_enabled: false, cache_enabled: type === 'master' },
    cache_config: {
      cache_db_host: typeof flat.cache_db_host === 'string' ? flat.cache_db_host : DEFAULT_CACHE_HOST,
      cache_db_port: typeof flat.cache_db_port === 'number' ? flat.cache_db_port : DEFAULT_CACHE_PORT,
      cache_db: typeof flat.cache_db === 'number' ? flat.cache_db : 0,
    },
    file_upload_path: Array.isArray(flat.file_upload_path) ? flat.file_upload_path : [],
  };
  const carried = new Set(['data_key', 'timestamp_key', 'cache_db_host', 'cache_db_port', 'cache_db', 'file_upload_path', 'entry_topic']);
  return { config, dropped: Object.keys(flat).filter((key) => !carried.has(key)) };
}

/** A JSON object (not null, not an array). */

/** The path of the first string or key holding a NUL character (which PostgreSQL cannot store), or
 * undefined. Callers bound the depth first (pathDeeperThan), so the recursion is bounded too. */
export function pathWithNul(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path || '/' : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, inner] of Object.entries(value)) {
    const at = `${path}/${key}`;
    if (key.includes('\u0000')) return at;
    const found = pathWithNul(inner, at);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Fills what a definition leaves out with the original's defaults; what it gives wins, key by key. */
export function withDefaults(definition: JsonObject, datasetId: string): JsonObject {
  const defaults: JsonObject = {
    validationConfig: { validate: true, mode: 'Strict' },
    extractionConfig: {
      is_batch_event: false,
      extraction_key: 'events',
      dedup_config: { drop_duplicates: false, dedup_key: 'id', dedup_period: DEDUP_PERIOD_SECONDS },
    },
    dedupConfig: { drop_duplicates: false, dedup_key: 'id', dedup_period: DEDUP_PERIOD_SECONDS },
    denormConfig: { cache_db_host: DEFAULT_CACHE_HOST, cache_db_port: DEFAULT_CACHE_PORT, denorm_fields: [] },
    routerConfig: { topic: datasetId },
    datasetConfig: {
      keys_config: { data_key: '', partition_key: '', timestamp_key: 'obsrv_meta.syncts' },
      indexing_config: { olap_store_enabled: true, lakehouse_enabled: false, cache_enabled: false },
      cache_config: { cache_db_host: DEFAULT_CACHE_HOST, cache_db_port: DEFAULT_CACHE_PORT, cache_db: 0 },
      file_upload_path: [],
    },
    tags: [],
    transformationsConfig: [],
    connectorsConfig: [],
    sampleData: {},
    entryTopic: DEFAULT_ENTRY_TOPIC,
  };
  return mergeOver(defaults, definition);
}

function mergeOver(base: JsonObject, over: JsonObject): JsonObject {
  const merged: JsonObject = { ...base };
  for (const [key, value] of Object.entries(over)) {
    merged[key] = isObject(value) && isObject(base[key]) ? mergeOver(base[key], value) : value;
  }
  return merged;
}

/** The ids of the datasets a definition denormalises from. */
export function denormSourcesOf(denormConfig: unknown): string[] {
  const fields = isObject(denormConfig) && Array.isArray(denormConfig.denorm_fields) ? denormConfig.denorm_fields : [];
  return [...new Set(fields.flatMap((field) => (isObject(field) && typeof field.dataset_id === 'string' ? [field.dataset_id] : [])))];
}

/** A connector instance of a definition, as the graph shows it (the item's snake_case keys in camelCase). */
export interface ConnectorInstance {
  instanceId: string;
  connectorId: string;
  version: string | null;
  connectorConfig: unknown;
  operationsConfig: unknown;
}

/** The connector instances of a version; items without their ids (old records) are left out. */
export function connectorInstances(record: Pick<DatasetRecord, 'connectorsConfig'>): ConnectorInstance[] {
  return record.connectorsConfig.flatMap((item) => {
    if (!isObject(item) || typeof item.id !== 'string' || typeof item.connector_id !== 'string') return [];
    return [
      {
        instanceId: item.id,
        connectorId: item.connector_id,
        version: typeof item.version === 'string' ? item.version : null,
        connectorConfig: item.connector_config ?? null,
        operationsConfig: item.operations_config ?? null,
      },
    ];
  });
}
