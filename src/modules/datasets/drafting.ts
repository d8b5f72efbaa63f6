// Authoring a draft section by section, as the original's console does: create a draft from a
// partial definition (defaults fill the rest), then update it one wizard step at a time, each update
// naming the version_key it read (the optimistic lock: a stale key is refused, never merged).
import type { Actor } from '../../auth/actor.js';
import { GatewayError } from '../../errors.js';
import { pathDeeperThan } from '../../validation/json-depth.js';
import { isObject } from '../../validation/json-object.js';
import { compileValidator } from '../../validation/json-schema.js';
import { unsupportedPatternIn } from '../../validation/linear-regexp.js';
import type { ConnectorSecrets } from './connector-secrets.js';
import {
  connectorSchema,
  DATASET_ID_MAX_LENGTH,
  DATASET_ID_PATTERN,
  DEFAULT_ENTRY_TOPIC,
  definitionSchema,
  denormFieldSchema,
  denormSourcesOf,
  pathWithNul,
  transformationSchema,
  withCacheNames,
  withDefaults,
} from './definition.js';
import { applyChanges, cascadeRemovedFields, CHANGE_ACTIONS, ITEM_KEYS, removedFieldPaths, withoutRemovedRequired, type Change } from './draft-changes.js';
import { isUniqueViolation, type DatasetStore } from './store.js';
import type { DatasetDraftValues, DatasetRecord, DatasetType, JsonObject } from './types.js';

const MAX_DEPTH = 32;
const properties = definitionSchema.properties;

/** A draft's schema may have no properties yet (the wizard infers them after creating it). */
const draftDataSchema = { ...properties.data_schema, properties: { ...properties.data_schema.properties, properties: { type: 'object' } } };
/** A whole draft, defaults filled: the import definition but for that. */
const draftSchema = { ...definitionSchema, properties: { ...properties, data_schema: draftDataSchema } };
/** What create accepts: only the id and name required; dataset_config is checked once merged over the defaults. */
const { if: _v2If, then: _v2Then, else: _v2Else, ...unconditionalDraftSchema } = draftSchema;
const CREATE_REQUEST_SCHEMA = { ...unconditionalDraftSchema, properties: { ...draftSchema.properties, dataset_config: { type: 'object' } }, required: ['dataset_id', 'name'] };

function changeList(value: object) {
  return {
    type: 'array',
    maxItems: 1000,
    items: { type: 'object', properties: { value, action: { type: 'string', enum: CHANGE_ACTIONS } }, required: ['value', 'action'], additionalProperties: false },
  };
}

/** What update accepts: sections replace (dataset_config merges), list sections are change lists. */
const UPDATE_REQUEST_SCHEMA = {
  type: 'object',
  properties: {
    dataset_id: { type: 'string', minLength: 1, maxLength: DATASET_ID_MAX_LENGTH },
    version_key: { type: 'string', minLength: 1, maxLength: 32 },
    name: properties.name,
    type: properties.type,
    data_schema: draftDataSchema,
    dataset_config: { type: 'object' },
    extraction_config: properties.extraction_config,
    validation_config: properties.validation_config,
    dedup_config: properties.dedup_config,
    denorm_config: {
      type: 'object',
      properties: { ...properties.denorm_config.properties, denorm_fields: changeList({ type: 'object' }) },
      additionalProperties: false,
    },
    transformations_config: changeList({ type: 'object' }),
    connectors_config: changeList({ type: 'object' }),
    tags: changeList({ type: 'string', minLength: 1, maxLength: 100 }),
    sample_data: properties.sample_data,
  },
  required: ['dataset_id', 'version_key'],
  additionalProperties: false,
};

const validateCreate = compileValidator(CREATE_REQUEST_SCHEMA);
const validateUpdate = compileValidator(UPDATE_REQUEST_SCHEMA);
const validateDraft = compileValidator(draftSchema);
const ITEM_VALIDATORS = {
  transformations_config: compileValidator(transformationSchema),
  connectors_config: compileValidator(connectorSchema),
  denorm_fields: compileValidator(denormFieldSchema),
} as const;
const DATASET_ID = new RegExp(DATASET_ID_PATTERN);

/** A version key newer than `previous`: two writes in one millisecond still get different keys. */
export function nextVersionKey(previous?: string): string {
  return String(Math.max(Date.now(), Number(previous ?? 0) + 1));
}

/** Refuses what no section check catches: runaway nesting, NUL characters, patterns RE2 cannot run. */
function checkDocument(input: unknown, code: 'DATASET_INVALID_INPUT' | 'DATASET_UPDATE_INPUT_INVALID'): JsonObject {
  if (!isObject(input)) throw new GatewayError(code, 'the request must be a JSON object');
  const tooDeep = pathDeeperThan(input, MAX_DEPTH);
  if (tooDeep !== undefined) throw new GatewayError(code, `the request is nested deeper than ${MAX_DEPTH} levels (at ${tooDeep.slice(0, 200)})`);
  const withNul = pathWithNul(input);
  if (withNul !== undefined) throw new GatewayError(code, `the request holds a NUL character (\\u0000), which cannot be stored (at ${JSON.stringify(withNul.slice(0, 200)).slice(1, -1)})`);
  const badPattern = unsupportedPatternIn(input.data_schema);
  if (badPattern) throw new GatewayError(code, badPattern);
  return withCacheNames(input);
}

/** Each item of a list section checked on its own, the first bad one named by its place. */
function checkItems(section: keyof typeof ITEM_VALIDATORS, items: readonly unknown[], code: 'DATASET_INVALID_INPUT' | 'DATASET_UPDATE_INPUT_INVALID'): void {
  items.forEach((item, index) => {
    const problem = ITEM_VALIDATORS[section](item);
    if (problem) throw new GatewayError(code, `${section}[${index}]: ${problem}`);
  });
}

/** Denorm fields writing the same output field (the original's DATASET_DUPLICATE_DENORM_KEY). */
function checkDenormOutputs(denormConfig: unknown): void {
  const outputs = (isObject(denormConfig) && Array.isArray(denormConfig.denorm_fields) ? denormConfig.denorm_fields : []).map((field) => (isObject(field) ? field.denorm_out_field : undefined));
  const duplicates = [...new Set(outputs.filter((name, index) => typeof name === 'string' && outputs.indexOf(name) !== index))];
  if (duplicates.length > 0) throw new GatewayError('DATASET_DUPLICATE_DENORM_KEY', `Duplicate denorm output fields found: ${duplicates.join(', ')}`);
}

/** The last item of each identity wins (the original de-duplicates what create is given). */
function lastOfEach(items: readonly unknown[], identity: (item: unknown) => string): unknown[] {
  const byKey = new Map<string, unknown>();
  for (const item of items) {
    const key = identity(item);
    byKey.delete(key);
    byKey.set(key, item);
  }
  return [...byKey.values()];
}

async function sealConnectors(connectors: readonly unknown[], datasetId: string, secrets: ConnectorSecrets): Promise<unknown[]> {
  return Promise.all(connectors.map(async (item) => (isObject(item) ? { ...item, connector_config: await secrets.seal(datasetId, item.connector_config) } : item)));
}

/** A definition (contract names, defaults filled) as the stored draft values. */
export function draftValues(definition: JsonObject, base: Pick<DatasetDraftValues, 'datasetId' | 'status' | 'version' | 'versionKey' | 'createdBy' | 'updatedBy'>): DatasetDraftValues {
  return {
    ...base,
    stage: 'draft',
    name: definition.name as string,
    type: definition.type as DatasetType,
    tags: definition.tags as string[],
    apiVersion: 'v2',
    dataSchema: definition.data_schema as JsonObject,
    extractionConfig: definition.extraction_config as JsonObject,
    validationConfig: definition.validation_config as JsonObject,
    dedupConfig: definition.dedup_config as JsonObject,
    denormConfig: definition.denorm_config as JsonObject,
    routerConfig: definition.router_config as JsonObject,
    datasetConfig: definition.dataset_config as JsonObject,
    transformationsConfig: definition.transformations_config as unknown[],
    connectorsConfig: definition.connectors_config as unknown[],
    sampleData: definition.sample_data as JsonObject,
    entryTopic: (definition.entry_topic as string) || DEFAULT_ENTRY_TOPIC,
    denormSources: denormSourcesOf(definition.denorm_config),
  };
}

/** The stored draft in contract names, for merging an update over it. */
function definitionOf(record: DatasetRecord): JsonObject {
  return {
    dataset_id: record.datasetId,
    name: record.name,
    type: record.type,
    tags: record.tags,
    data_schema: record.dataSchema,
    extraction_config: record.extractionConfig ?? {},
    validation_config: record.validationConfig ?? {},
    dedup_config: record.dedupConfig ?? {},
    denorm_config: withCacheNames(record.denormConfig ?? {}),
    router_config: record.routerConfig ?? { topic: record.datasetId },
    dataset_config: withCacheNames(record.datasetConfig),
    transformations_config: record.transformationsConfig,
    connectors_config: record.connectorsConfig,
    sample_data: record.sampleData ?? {},
    entry_topic: record.entryTopic ?? DEFAULT_ENTRY_TOPIC,
    api_version: 'v2',
  };
}

export function createDraftingService(store: DatasetStore, secrets: ConnectorSecrets) {
  return {
    /** A new draft from a partial definition; 409 DATASET_EXISTS when the id has any version. */
    async create(input: unknown, actor: Actor): Promise<DatasetRecord> {
      const given = checkDocument(input, 'DATASET_INVALID_INPUT');
      const invalid = validateCreate(given);
      if (invalid) throw new GatewayError('DATASET_INVALID_INPUT', invalid);
      const datasetId = given.dataset_id as string;
      const alreadyExists = () => new GatewayError('DATASET_EXISTS', `Dataset Already exists with id:${datasetId}`);
      if ((await store.findVersions([datasetId])).length > 0) throw alreadyExists();

      const { status: _s, version: _v, version_key: _k, created_by: _cb, updated_by: _ub, created_date: _cd, updated_date: _ud, published_date: _pd, alias: _alias, ...definable } = given;
      const definition = withDefaults(
        { type: 'event', data_schema: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: {}, additionalProperties: true }, ...definable, api_version: 'v2' },
        datasetId,
      );
      definition.router_config = { topic: datasetId };
      const denorm = definition.denorm_config as JsonObject;
      checkItems('transformations_config', definition.transformations_config as unknown[], 'DATASET_INVALID_INPUT');
      checkItems('connectors_config', definition.connectors_config as unknown[], 'DATASET_INVALID_INPUT');
      checkItems('denorm_fields', (denorm.denorm_fields as unknown[] | undefined) ?? [], 'DATASET_INVALID_INPUT');
      checkDenormOutputs(denorm);
      const mergedProblem = validateDraft(definition);
      if (mergedProblem) throw new GatewayError('DATASET_INVALID_INPUT', mergedProblem);

      definition.transformations_config = lastOfEach(definition.transformations_config as unknown[], (item) => String((item as JsonObject).field_key));
      definition.connectors_config = await sealConnectors(
        lastOfEach(definition.connectors_config as unknown[], (item) => JSON.stringify([(item as JsonObject).connector_id, (item as JsonObject).connector_config])),
        datasetId,
        secrets,
      );
      const values = draftValues(definition, { datasetId, status: 'Draft', version: 1, versionKey: nextVersionKey(), createdBy: actor.id, updatedBy: actor.id });
      try {
        return await store.insert(values);
      } catch (error) {
        if (isUniqueViolation(error)) throw alreadyExists();
        throw error;
      }
    },

    /** Applies one update to the draft holding `version_key`; the result carries the new key. */
    async update(input: unknown, actor: Actor): Promise<DatasetRecord> {
      const given = checkDocument(input, 'DATASET_UPDATE_INPUT_INVALID');
      const invalid = validateUpdate(given);
      if (invalid) throw new GatewayError('DATASET_UPDATE_INPUT_INVALID', invalid);
      const { dataset_id: datasetId, version_key: versionKey, ...changes } = given as JsonObject & { dataset_id: string; version_key: string };
      if (Object.keys(changes).length === 0) {
        throw new GatewayError('DATASET_UPDATE_NO_FIELDS', 'Provide at least one field in addition to the dataset_id and version_key to update the dataset');
      }
      if (!DATASET_ID.test(datasetId)) throw new GatewayError('DATASET_NOT_EXISTS', `Dataset does not exists with id:${datasetId}`);
      const draft = await store.find(datasetId, 'draft');
      if (!draft) {
        const live = await store.find(datasetId, 'live');
        if (live) throw new GatewayError('DATASET_NOT_IN_DRAFT_STATE_TO_UPDATE', `Dataset ${datasetId} is ${live.status} and has no draft: read it with mode=edit to start one`);
        throw new GatewayError('DATASET_NOT_EXISTS', `Dataset does not exists with id:${datasetId}`);
      }
      const outdated = () => new GatewayError('DATASET_OUTDATED', 'The dataset is outdated. Please try to fetch latest changes of the dataset and perform the updates');
      if (draft.versionKey !== versionKey) throw outdated();

      const definition = definitionOf(draft);
      for (const section of ['name', 'type', 'extraction_config', 'validation_config', 'dedup_config', 'sample_data'] as const) {
        if (section in changes) definition[section] = changes[section];
      }
      if (isObject(changes.dataset_config)) definition.dataset_config = { ...(definition.dataset_config as JsonObject), ...changes.dataset_config };
      if (Array.isArray(changes.tags)) definition.tags = applyChanges(draft.tags, changes.tags as Change[]);
      for (const section of ['transformations_config', 'connectors_config'] as const) {
        const list = changes[section] as Change[] | undefined;
        if (!list) continue;
        checkItems(
          section,
          list.filter((change) => change.action === 'upsert').map((change) => change.value),
          'DATASET_UPDATE_INPUT_INVALID',
        );
        const upserts =
          section === 'connectors_config'
            ? await sealConnectors(
                list.map((change) => change.value),
                datasetId,
                secrets,
              )
            : list.map((change) => change.value);
        definition[section] = applyChanges(
          definition[section] as unknown[],
          list.map((change, index) => ({ ...change, value: upserts[index] })),
          ITEM_KEYS[section],
        );
      }
      if (isObject(changes.denorm_config)) {
        const { denorm_fields: fieldChanges, ...settings } = changes.denorm_config as JsonObject & { denorm_fields?: Change[] };
        const denorm = { ...(definition.denorm_config as JsonObject), ...settings };
        if (fieldChanges) {
          checkItems(
            'denorm_fields',
            fieldChanges.filter((change) => change.action === 'upsert').map((change) => change.value),
            'DATASET_UPDATE_INPUT_INVALID',
          );
          denorm.denorm_fields = applyChanges(Array.isArray(denorm.denorm_fields) ? denorm.denorm_fields : [], fieldChanges, ITEM_KEYS.denorm_fields);
        }
        checkDenormOutputs(denorm);
        definition.denorm_config = denorm;
      }
      if (isObject(changes.data_schema)) {
        const removed = removedFieldPaths(definition.data_schema, changes.data_schema);
        definition.data_schema = withoutRemovedRequired(changes.data_schema, removed);
        cascadeRemovedFields(definition as Parameters<typeof cascadeRemovedFields>[0], removed);
      }
      // The draft as a whole must still be a definition import would take (a schema without
      // properties aside).
      const problem = validateDraft(definition);
      if (problem) throw new GatewayError('DATASET_UPDATE_INPUT_INVALID', problem);

      const values = draftValues(definition, {
        datasetId,
        status: draft.status,
        version: draft.version,
        versionKey: nextVersionKey(draft.versionKey),
        createdBy: draft.createdBy,
        updatedBy: actor.id,
      });
      const updated = await store.replaceDraftIfCurrent(values, versionKey);
      if (!updated) throw outdated();
      return updated;
    },
  };
}
