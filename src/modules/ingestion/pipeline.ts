// The processing rules of a dataset's events (domain rules of ingestion): batch extraction, schema
// validation, dedup keys, event time, master keys and denorm lookups. Pure functions; the embedded
// event store runs them and does the reads and writes around them, and the schema check
// (checkEvent) uses the same validator.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { DatasetRecord, JsonObject } from '../datasets/index.js';
import { linearRegExpEngine } from '../../validation/linear-regexp.js';
import { batchKeys, type EventProcessing, type ExtractedEvent } from '../../platform/event-bus/event-bus.js';
import { isObject, textOf } from '../../validation/json-object.js';
import { parseTimestamp } from '../../validation/timestamp.js';

/** The value at a dotted path (`a.b.c`); a key that itself contains the dots wins. Own keys only. */
export function valueAt(event: JsonObject, path: string): unknown {
  if (!path) return undefined;
  if (Object.hasOwn(event, path)) return event[path];
  let current: unknown = event;
  for (const part of path.split('.')) {
    if (!isObject(current) || !Object.hasOwn(current, part)) return undefined;
    current = current[part];
  }
  return current;
}

/** The events a message carries: the single event, or the batch under the extraction key; with
 * is_batch_event, an event holding an array under the extraction key is split into its items. Each
 * keeps its position in the request (and in its own batch), so a refusal can say which event it was. */
export function extractEvents(value: JsonObject, dataset: DatasetRecord): ExtractedEvent[] {
  const { extractionKey } = batchKeys(dataset);
  const carried = 'event' in value ? [value.event] : Array.isArray(value[extractionKey]) ? (value[extractionKey] as unknown[]) : [];
  const splits = dataset.extractionConfig?.is_batch_event === true;
  return carried.flatMap((event, index) =>
    splits && isObject(event) && Array.isArray(event[extractionKey]) ? (event[extractionKey] as unknown[]).map((inner, item) => ({ event: inner, index, item })) : [{ event, index }],
  );
}

// Data schemas carry the contract's own keywords (arrival_format, data_type, suggestions): not strict.
// ownProperties: an optional field named like an Object method (toString) must not be "found" on the prototype.
// code.regExp: the schema's own patterns run on a linear-time engine (no ReDoS through an event).
const ajv = new Ajv2020({ strict: false, allErrors: false, ownProperties: true, code: { regExp: linearRegExpEngine } });
(addFormatsModule as unknown as { default: (a: Ajv2020) => void }).default(ajv);
// One compiled validator per dataset, replaced when its version or mode changes (keyed by version
// alone, every edit of every dataset would stay in memory for good).
const validators = new Map<string, { key: string; validate: ValidateFunction | Error }>();

/** Undefined when the event passes the dataset's validation (or validation is off), else the reason. */
export function validationProblem(event: JsonObject, dataset: DatasetRecord): string | undefined {
  return eventValidator(dataset)(event);
}

const NO_VALIDATION = (): undefined => undefined;

/** validationProblem for many events of one dataset: the dataset's validator is looked up once. */
export function eventValidator(dataset: DatasetRecord): (event: JsonObject) => string | undefined {
  const config = dataset.validationConfig ?? {};
  if (config.validate !== true) return NO_VALIDATION;
  const cacheKey = `${dataset.versionKey}:${String(config.mode)}`;
  const cached = validators.get(dataset.datasetId);
  let validate = cached?.key === cacheKey ? cached.validate : undefined;
  if (!validate) {
    try {
      // Strict refuses fields the schema does not name; IgnoreNewFields lets them through.
      const { $schema: _ignored, ...schema } = dataset.dataSchema;
      validate = ajv.compile({ ...schema, additionalProperties: config.mode === 'IgnoreNewFields' ? true : (schema.additionalProperties ?? false) });
    } catch (error) {
      validate = error as Error;
    }
    validators.set(dataset.datasetId, { key: cacheKey, validate });
  }
  if (validate instanceof Error) {
    const problem = `the dataset's event schema (dataSchema) cannot be compiled: ${validate.message}`;
    return () => problem;
  }
  const compiled = validate;
  return (event) => {
    if (compiled(event)) return undefined;
    const first = compiled.errors?.[0];
    const extra = first?.keyword === 'additionalProperties' ? ` '${String(first.params.additionalProperty)}'` : '';
    return `${first?.instancePath || '/'} ${first?.message ?? 'is invalid'}${extra}`;
  };
}

const EARLIEST = Date.UTC(1970, 0, 1);
const LATEST = Date.UTC(2200, 0, 1);

/** Event time from the dataset's timestamp_key (epoch seconds or ms, or ISO text); `fallback` otherwise. */
export function eventTime(event: JsonObject, dataset: DatasetRecord, fallback: number): number {
  const keys = dataset.datasetConfig.keys_config;
  const key = isObject(keys) && typeof keys.timestamp_key === 'string' ? keys.timestamp_key : dataset.datasetConfig.timestamp_key;
  if (typeof key !== 'string' || !key || key.startsWith('obsrv_meta.')) return fallback;
  const raw = valueAt(event, key);
  let ms: number;
  if (typeof raw === 'number') ms = raw < 1e11 ? raw * 1000 : raw;
  else if (typeof raw === 'string' && /^\d+$/.test(raw)) ms = Number(raw) < 1e11 ? Number(raw) * 1000 : Number(raw);
  else if (typeof raw === 'string') ms = parseTimestamp(raw);
  else return fallback;
  return Number.isFinite(ms) && ms >= EARLIEST && ms < LATEST ? ms : fallback;
}

/** The dedup key of an event as text, when the dataset drops duplicates and the event has one. */
export function dedupKeyOf(event: JsonObject, dataset: DatasetRecord): string | undefined {
  const dedup = dataset.dedupConfig ?? {};
  if (dedup.drop_duplicates !== true || typeof dedup.dedup_key !== 'string') return undefined;
  const value = valueAt(event, dedup.dedup_key);
  return value === undefined || value === null || typeof value === 'object' ? undefined : textOf(value);
}

export function dedupPeriodSeconds(dataset: DatasetRecord): number {
  const period = dataset.dedupConfig?.dedup_period;
  return typeof period === 'number' && period > 0 ? period : 604_800;
}

/** The record key of a master dataset's event. */
export function masterKeyOf(event: JsonObject, dataset: DatasetRecord): string | undefined {
  const keys = dataset.datasetConfig.keys_config;
  const dataKey = isObject(keys) && typeof keys.data_key === 'string' ? keys.data_key : dataset.datasetConfig.data_key;
  if (typeof dataKey !== 'string' || !dataKey) return undefined;
  const value = valueAt(event, dataKey);
  return value === undefined || value === null || typeof value === 'object' ? undefined : textOf(value);
}

export interface DenormField {
  masterId: string;
  key: string;
  outField: string;
}

export function denormFields(dataset: DatasetRecord): DenormField[] {
  const fields = Array.isArray(dataset.denormConfig?.denorm_fields) ? (dataset.denormConfig.denorm_fields as unknown[]) : [];
  return fields.flatMap((field) =>
    isObject(field) && typeof field.dataset_id === 'string' && typeof field.denorm_key === 'string' && typeof field.denorm_out_field === 'string'
      ? [{ masterId: field.dataset_id, key: field.denorm_key, outField: field.denorm_out_field }]
      : [],
  );
}

/** The rules above, as the embedded event store takes them (src/server.ts hands them over). */
export const ingestionProcessing: EventProcessing = { extractEvents, eventValidator, dedupKeyOf, dedupPeriodSeconds, eventTime, masterKeyOf, denormFields, valueAt };
