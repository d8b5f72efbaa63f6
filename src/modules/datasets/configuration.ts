// The platform-defined parts of a dataset definition as the graph types them (DatasetConfiguration,
// Transformation): read from the stored JSON, the flat v1 datasetConfig of old records converted
// to its v2 places first. Absent or mistyped keys are null, never guessed.
import { isObject } from '../../validation/json-object.js';
import { convertFlatDatasetConfig, isNestedDatasetConfig, withCacheNames } from './definition.js';
import type { DatasetRecord, JsonObject } from './types.js';

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const flag = (value: unknown): boolean | null => (typeof value === 'boolean' ? value : null);
const integer = (value: unknown): number | null => (typeof value === 'number' && Number.isInteger(value) ? value : null);
const object = (value: unknown): JsonObject => (isObject(value) ? value : {});

function dedup(config: unknown) {
  if (!isObject(config)) return null;
  return { dropDuplicates: flag(config.drop_duplicates), dedupKey: text(config.dedup_key), dedupPeriod: integer(config.dedup_period) };
}

export function datasetConfiguration(record: Pick<DatasetRecord, 'datasetConfig' | 'type' | 'extractionConfig' | 'validationConfig' | 'dedupConfig' | 'denormConfig' | 'routerConfig'>) {
  const given = withCacheNames(record.datasetConfig);
  const config = isNestedDatasetConfig(given) ? given : convertFlatDatasetConfig(given, record.type).config;
  const keys = object(config.keys_config);
  const indexing = object(config.indexing_config);
  const cache = isObject(config.cache_config) ? config.cache_config : null;
  const extraction = record.extractionConfig;
  const denorm = record.denormConfig ? withCacheNames(record.denormConfig) : null;
  return {
    keys: { dataKey: text(keys.data_key), partitionKey: text(keys.partition_key), timestampKey: text(keys.timestamp_key) },
    indexing: { olapStoreEnabled: flag(indexing.olap_store_enabled), lakehouseEnabled: flag(indexing.lakehouse_enabled), cacheEnabled: flag(indexing.cache_enabled) },
    cache: cache && { host: text(cache.cache_db_host), port: integer(cache.cache_db_port), database: integer(cache.cache_db) },
    fileUploadPaths: Array.isArray(config.file_upload_path) ? config.file_upload_path.filter((path): path is string => typeof path === 'string') : [],
    extraction: extraction && { isBatchEvent: flag(extraction.is_batch_event), extractionKey: text(extraction.extraction_key), dedup: dedup(extraction.dedup_config) },
    validation: record.validationConfig && { validate: flag(record.validationConfig.validate), mode: text(record.validationConfig.mode) },
    dedup: dedup(record.dedupConfig),
    denorm: denorm && {
      cacheHost: text(denorm.cache_db_host),
      cachePort: integer(denorm.cache_db_port),
      fields: (Array.isArray(denorm.denorm_fields) ? denorm.denorm_fields : []).filter(isObject).map((field) => ({
        datasetId: text(field.dataset_id) ?? '',
        outField: text(field.denorm_out_field) ?? '',
        denormKey: text(field.denorm_key),
        jsonataExpression: text(field.jsonata_expr),
      })),
    },
    router: record.routerConfig && { topic: text(record.routerConfig.topic) },
  };
}

/** A transformation's condition as the console writes it (`{type, expr}`), typed; null for always. */
function conditionOf(condition: unknown): { type: string | null; expression: string | null } | null {
  if (!isObject(condition)) return null;
  return { type: text(condition.type), expression: text(condition.expr) };
}

export function transformations(record: Pick<DatasetRecord, 'transformationsConfig'>) {
  return record.transformationsConfig.filter(isObject).map((item) => {
    const fn = object(item.transformation_function);
    return {
      fieldKey: text(item.field_key) ?? '',
      mode: text(item.mode),
      type: text(fn.type),
      expression: text(fn.expr),
      dataType: text(fn.datatype),
      category: text(fn.category),
      condition: fn.condition ?? null,
      when: conditionOf(fn.condition),
    };
  });
}
