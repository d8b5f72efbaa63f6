// A dataset version as a definition document: the original's file format (contract 2.1), which
// export writes and import reads, and which the v2 REST API shows as its record. The datasets module
// speaks the domain's names (DatasetRecord's); this file is the one place that knows the document's,
// so the module converts at its edge (import, export) and rest/ projects its answers through it.
import { GatewayError } from '../errors.js';
import { isObject } from '../validation/json-object.js';
import type { DatasetRecord, JsonObject } from './dataset.js';

/** Each domain field of a definition and what the document calls it, in the order the original writes them. */
export const DOCUMENT_NAMES = {
  datasetId: 'dataset_id',
  name: 'name',
  type: 'type',
  status: 'status',
  tags: 'tags',
  version: 'version',
  versionKey: 'version_key',
  apiVersion: 'api_version',
  dataSchema: 'data_schema',
  extractionConfig: 'extraction_config',
  validationConfig: 'validation_config',
  dedupConfig: 'dedup_config',
  denormConfig: 'denorm_config',
  routerConfig: 'router_config',
  datasetConfig: 'dataset_config',
  transformationsConfig: 'transformations_config',
  connectorsConfig: 'connectors_config',
  sampleData: 'sample_data',
  entryTopic: 'entry_topic',
  createdBy: 'created_by',
  updatedBy: 'updated_by',
  createdDate: 'created_date',
  updatedDate: 'updated_date',
  publishedDate: 'published_date',
  alias: 'alias',
  dataVersion: 'data_version',
} as const;

export type DocumentField = keyof typeof DOCUMENT_NAMES;

const DOMAIN_NAMES: Readonly<Record<string, string>> = Object.fromEntries(Object.entries(DOCUMENT_NAMES).map(([domain, document]) => [document, domain]));

/** A document's top-level keys in the domain's names (a key the format does not know stays as given, for the schema to name). */
export function fromDocument(document: JsonObject): JsonObject {
  return Object.fromEntries(Object.entries(document).map(([key, value]) => [DOMAIN_NAMES[key] ?? key, value]));
}

/**
 * A JSON Schema of a domain-named object with its top-level property names in the document's
 * (properties, required, and the root's own if/then/else and combinators): one set of rules, read
 * in either naming.
 */
export function withDocumentNames(schema: JsonObject): JsonObject {
  const named = (key: string) => (DOCUMENT_NAMES as Record<string, string>)[key] ?? key;
  const renamed: JsonObject = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword === 'properties' && isObject(value)) renamed.properties = Object.fromEntries(Object.entries(value).map(([key, inner]) => [named(key), inner]));
    else if (keyword === 'required' && Array.isArray(value)) renamed.required = (value as unknown[]).map((key) => (typeof key === 'string' ? named(key) : key));
    else if (['if', 'then', 'else'].includes(keyword) && isObject(value)) renamed[keyword] = withDocumentNames(value);
    else if (['allOf', 'anyOf', 'oneOf'].includes(keyword) && Array.isArray(value)) renamed[keyword] = (value as unknown[]).map((inner) => (isObject(inner) ? withDocumentNames(inner) : inner));
    else renamed[keyword] = value;
  }
  return renamed;
}

const CACHE_RENAMES: Record<string, string> = { redis_db_host: 'cache_db_host', redis_db_port: 'cache_db_port', redis_db: 'cache_db' };

/** Renames the original's redis_db_* keys to the contract's cache_db_* at any depth, keeping key order. */
export function withCacheNames<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withCacheNames) as T;
  if (value === null || typeof value !== 'object') return value;
  const renamed: JsonObject = {};
  for (const [key, inner] of Object.entries(value as JsonObject)) {
    const name = CACHE_RENAMES[key] ?? key;
    // A caller sending both spellings: the contract's name wins.
    if (name !== key && Object.hasOwn(value, name)) continue;
    renamed[name] = withCacheNames(inner);
  }
  return renamed as T;
}

/** The fields a version's document shows, in its order: all but data_version, which import alone reads. */
export const VERSION_FIELDS = (Object.keys(DOCUMENT_NAMES) as DocumentField[]).filter((field): field is Exclude<DocumentField, 'dataVersion'> => field !== 'dataVersion');

/** The version as a definition document (seed 2.1). */
export function toDocument(record: DatasetRecord): JsonObject {
  const values: Record<(typeof VERSION_FIELDS)[number], unknown> = {
    ...record,
    denormConfig: withCacheNames(record.denormConfig),
    datasetConfig: withCacheNames(record.datasetConfig),
    createdDate: record.createdDate.toISOString(),
    updatedDate: record.updatedDate.toISOString(),
    publishedDate: record.publishedDate ? record.publishedDate.toISOString() : null,
  };
  return { id: record.datasetId, ...Object.fromEntries(VERSION_FIELDS.map((field) => [DOCUMENT_NAMES[field], values[field]])) };
}

/** The fields of a version the v2 list shows: these for every version, and for a draft its configuration too. */
const LIST_FIELDS: readonly DocumentField[] = ['datasetId', 'name', 'type', 'status', 'tags', 'version', 'versionKey', 'apiVersion', 'datasetConfig', 'createdDate', 'updatedDate', 'alias'];
const DRAFT_LIST_EXTRA_FIELDS: readonly DocumentField[] = ['dataSchema', 'validationConfig', 'dedupConfig', 'denormConfig', 'connectorsConfig'];

const LIVE_LIST_NAMES = LIST_FIELDS.map((name) => DOCUMENT_NAMES[name]);
const DRAFT_LIST_NAMES = [...LIST_FIELDS, ...DRAFT_LIST_EXTRA_FIELDS].map((name) => DOCUMENT_NAMES[name]);

/** The document's names of the fields the v2 list shows of a version at `stage`, in the list's order. */
export function listDocumentNames(stage: DatasetRecord['stage']): readonly string[] {
  return stage === 'draft' ? DRAFT_LIST_NAMES : LIVE_LIST_NAMES;
}

/** The version as the v2 list shows it: the list fields, and for a draft its configuration too. */
export function toListDocument(record: DatasetRecord): JsonObject {
  const full = toDocument(record);
  return Object.fromEntries(listDocumentNames(record.stage).map((name) => [name, full[name]]));
}

/** Longest selection of a record's fields a read takes, its names joined by commas as REST's query string carries them. */
const READ_FIELDS_MAX_LENGTH = 2000;

/**
 * Refuses a selection of a dataset record's top-level fields that is longer than a read takes
 * (INVALID_INPUT) or names a field the record lacks (DATASET_INVALID_FIELDS, naming them): one rule
 * wherever a record is narrowed (REST's `fields=`, `Dataset.definition(fields)`).
 */
export function checkFieldSelection(fields: readonly string[], known: (field: string) => boolean): void {
  const length = fields.reduce((total, field) => total + field.length + 1, -1);
  if (length > READ_FIELDS_MAX_LENGTH) {
    throw new GatewayError('INVALID_INPUT', `fields is ${length} characters long (its names joined by commas); at most ${READ_FIELDS_MAX_LENGTH} are allowed`);
  }
  const unknown = fields.filter((field) => !known(field));
  if (unknown.length > 0) throw new GatewayError('DATASET_INVALID_FIELDS', `The specified fields [${unknown.join(',')}] in the dataset cannot be found.`);
}
