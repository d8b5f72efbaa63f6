// Authoring a draft section by section, as the original's console does: create a draft from a
// partial definition (defaults fill the rest), then update it one wizard step at a time, each update
// naming the versionKey it read (the optimistic lock: a stale key is refused, never merged).
// Everything here is in the domain's names; messages name the caller's fields as MessageParts, so
// each transport shows them in its callers' names.
import type { Actor } from '../../auth/actor.js';
import { field, GatewayError, type ErrorCode, type MessagePart } from '../../errors.js';
import { pathDeeperThan } from '../../validation/json-depth.js';
import { isObject } from '../../validation/json-object.js';
import { compileFieldValidator, compileValidator } from '../../validation/json-schema.js';
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
import type { DatasetDraftInput, DatasetDraftValues, DatasetRecord, DatasetType, DatasetUpdateInput, JsonObject } from './types.js';

const MAX_DEPTH = 32;
const properties = definitionSchema.properties;

/** A draft's schema may have no properties yet (the wizard infers them after creating it). */
const draftDataSchema = { ...properties.dataSchema, properties: { ...properties.dataSchema.properties, properties: { type: 'object' } } };
/** A whole draft, defaults filled: the import definition but for that. */
const draftSchema = { ...definitionSchema, properties: { ...properties, dataSchema: draftDataSchema } };
/** What create accepts: only the id and name required; datasetConfig is checked once merged over the defaults. */
const { if: _v2If, then: _v2Then, else: _v2Else, ...unconditionalDraftSchema } = draftSchema;
const CREATE_INPUT_SCHEMA = { ...unconditionalDraftSchema, properties: { ...draftSchema.properties, datasetConfig: { type: 'object' } }, required: ['datasetId', 'name'] };

function changeList(value: object) {
  return {
    type: 'array',
    maxItems: 1000,
    items: { type: 'object', properties: { value, action: { type: 'string', enum: CHANGE_ACTIONS } }, required: ['value', 'action'], additionalProperties: false },
  };
}

/** What update accepts: sections replace (datasetConfig merges), list sections are change lists. */
const UPDATE_INPUT_SCHEMA = {
  type: 'object',
  properties: {
    datasetId: { type: 'string', minLength: 1, maxLength: DATASET_ID_MAX_LENGTH },
    versionKey: { type: 'string', minLength: 1, maxLength: 32 },
    name: properties.name,
    type: properties.type,
    dataSchema: draftDataSchema,
    datasetConfig: { type: 'object' },
    extractionConfig: properties.extractionConfig,
    validationConfig: properties.validationConfig,
    dedupConfig: properties.dedupConfig,
    denormConfig: {
      type: 'object',
      properties: { ...properties.denormConfig.properties, denorm_fields: changeList({ type: 'object' }) },
      additionalProperties: false,
    },
    transformationsConfig: changeList({ type: 'object' }),
    connectorsConfig: changeList({ type: 'object' }),
    tags: changeList({ type: 'string', minLength: 1, maxLength: 100 }),
    sampleData: properties.sampleData,
  },
  required: ['datasetId', 'versionKey'],
  additionalProperties: false,
};

const validateCreate = compileFieldValidator(CREATE_INPUT_SCHEMA);
const validateUpdate = compileFieldValidator(UPDATE_INPUT_SCHEMA);
const validateDraft = compileFieldValidator(draftSchema);
/** The list sections whose items are checked one by one (the denorm fields are denormConfig's list). */
const ITEM_VALIDATORS = {
  transformationsConfig: compileValidator(transformationSchema),
  connectorsConfig: compileValidator(connectorSchema),
  denorm_fields: compileValidator(denormFieldSchema),
} as const;
const DATASET_ID = new RegExp(DATASET_ID_PATTERN);

type InputCode = Extract<ErrorCode, 'DATASET_INVALID_INPUT' | 'DATASET_UPDATE_INPUT_INVALID'>;

/** A version key newer than `previous`: two writes in one millisecond still get different keys. */
export function nextVersionKey(previous?: string): string {
  return String(Math.max(Date.now(), Number(previous ?? 0) + 1));
}

/** A path into the input ("/dataSchema/properties/x") with its top-level name as a field. */
export function inputPath(path: string): MessagePart[] {
  const found = /^\/([^/]+)(.*)$/.exec(path);
  return found ? ['/', field(found[1]!), found[2]!] : [path];
}

/** Refuses what no section check catches: runaway nesting, NUL characters, patterns RE2 cannot run. */
function checkDocument(input: JsonObject, code: InputCode): JsonObject {
  const tooDeep = pathDeeperThan(input, MAX_DEPTH);
  if (tooDeep !== undefined) throw new GatewayError(code, [`the request is nested deeper than ${MAX_DEPTH} levels (at `, ...inputPath(tooDeep.slice(0, 200)), ')']);
  const withNul = pathWithNul(input);
  if (withNul !== undefined) {
    throw new GatewayError(code, ['the request holds a NUL character (\\u0000), which cannot be stored (at ', ...inputPath(JSON.stringify(withNul.slice(0, 200)).slice(1, -1)), ')']);
  }
  const badPattern = unsupportedPatternIn(input.dataSchema, '');
  if (badPattern) throw new GatewayError(code, [field('dataSchema'), badPattern]);
  return withCacheNames(input);
}

/** Each item of a list section checked on its own, the first bad one named by its place. */
function checkItems(section: keyof typeof ITEM_VALIDATORS, items: readonly unknown[], code: InputCode): void {
  items.forEach((item, index) => {
    const problem = ITEM_VALIDATORS[section](item);
    if (problem) throw new GatewayError(code, [section === 'denorm_fields' ? section : field(section), `[${index}]: ${problem}`]);
  });
}

/** Denorm fields writing the same output field (the original's DATASET_DUPLICATE_DENORM_KEY). */
function checkDenormOutputs(denormConfig: unknown): void {
  const outputs = (isObject(denormConfig) && Array.isArray(denormConfig.denorm_fields) ? denormConfig.denorm_fields : []).map((item) => (isObject(item) ? item.denorm_out_field : undefined));
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

/** A whole definition (defaults filled) as the stored draft values. */
export function draftValues(definition: JsonObject, base: Pick<DatasetDraftValues, 'datasetId' | 'status' | 'version' | 'versionKey' | 'createdBy' | 'updatedBy'>): DatasetDraftValues {
  return {
    ...base,
    stage: 'draft',
    name: definition.name as string,
    type: definition.type as DatasetType,
    tags: definition.tags as string[],
    apiVersion: 'v2',
    dataSchema: definition.dataSchema as JsonObject,
    extractionConfig: definition.extractionConfig as JsonObject,
    validationConfig: definition.validationConfig as JsonObject,
    dedupConfig: definition.dedupConfig as JsonObject,
    denormConfig: definition.denormConfig as JsonObject,
    routerConfig: definition.routerConfig as JsonObject,
    datasetConfig: definition.datasetConfig as JsonObject,
    transformationsConfig: definition.transformationsConfig as unknown[],
    connectorsConfig: definition.connectorsConfig as unknown[],
    sampleData: definition.sampleData as JsonObject,
    entryTopic: (definition.entryTopic as string) || DEFAULT_ENTRY_TOPIC,
    denormSources: denormSourcesOf(definition.denormConfig),
  };
}

/** The stored draft as a whole definition, for merging an update over it. */
function definitionOf(record: DatasetRecord): JsonObject {
  return {
    datasetId: record.datasetId,
    name: record.name,
    type: record.type,
    tags: record.tags,
    dataSchema: record.dataSchema,
    extractionConfig: record.extractionConfig ?? {},
    validationConfig: record.validationConfig ?? {},
    dedupConfig: record.dedupConfig ?? {},
    denormConfig: withCacheNames(record.denormConfig ?? {}),
    routerConfig: record.routerConfig ?? { topic: record.datasetId },
    datasetConfig: withCacheNames(record.datasetConfig),
    transformationsConfig: record.transformationsConfig,
    connectorsConfig: record.connectorsConfig,
    sampleData: record.sampleData ?? {},
    entryTopic: record.entryTopic ?? DEFAULT_ENTRY_TOPIC,
    apiVersion: 'v2',
  };
}

/** The given sections only: an absent or null one is not part of the request. */
function givenSections<T extends object>(input: T): JsonObject {
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined && value !== null));
}

export function createDraftingService(store: DatasetStore, secrets: ConnectorSecrets) {
  return {
    /** A new draft from a partial definition; 409 DATASET_EXISTS when the id has any version. */
    async create(input: DatasetDraftInput, actor: Actor): Promise<DatasetRecord> {
      const given = checkDocument(givenSections(input), 'DATASET_INVALID_INPUT');
      const invalid = validateCreate(given);
      if (invalid) throw new GatewayError('DATASET_INVALID_INPUT', invalid);
      const datasetId = input.datasetId;
      const alreadyExists = () => new GatewayError('DATASET_EXISTS', `Dataset Already exists with id:${datasetId}`);
      if ((await store.findVersions([datasetId])).length > 0) throw alreadyExists();

      const definition = withDefaults(
        { type: 'event', dataSchema: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: {}, additionalProperties: true }, ...given, apiVersion: 'v2' },
        datasetId,
      );
      definition.routerConfig = { topic: datasetId };
      const denorm = definition.denormConfig as JsonObject;
      checkItems('transformationsConfig', definition.transformationsConfig as unknown[], 'DATASET_INVALID_INPUT');
      checkItems('connectorsConfig', definition.connectorsConfig as unknown[], 'DATASET_INVALID_INPUT');
      checkItems('denorm_fields', (denorm.denorm_fields as unknown[] | undefined) ?? [], 'DATASET_INVALID_INPUT');
      checkDenormOutputs(denorm);
      const mergedProblem = validateDraft(definition);
      if (mergedProblem) throw new GatewayError('DATASET_INVALID_INPUT', mergedProblem);

      definition.transformationsConfig = lastOfEach(definition.transformationsConfig as unknown[], (item) => String((item as JsonObject).field_key));
      definition.connectorsConfig = await sealConnectors(
        lastOfEach(definition.connectorsConfig as unknown[], (item) => JSON.stringify([(item as JsonObject).connector_id, (item as JsonObject).connector_config])),
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

    /** Applies one update to the draft holding `versionKey`; the result carries the new key. */
    async update(input: DatasetUpdateInput, actor: Actor): Promise<DatasetRecord> {
      const given = checkDocument(givenSections(input), 'DATASET_UPDATE_INPUT_INVALID');
      const invalid = validateUpdate(given);
      if (invalid) throw new GatewayError('DATASET_UPDATE_INPUT_INVALID', invalid);
      const { datasetId, versionKey, ...changes } = given as JsonObject & Pick<DatasetUpdateInput, 'datasetId' | 'versionKey'>;
      if (Object.keys(changes).length === 0) {
        throw new GatewayError('DATASET_UPDATE_NO_FIELDS', ['Provide at least one field in addition to the ', field('datasetId'), ' and ', field('versionKey'), ' to update the dataset']);
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
      for (const section of ['name', 'type', 'extractionConfig', 'validationConfig', 'dedupConfig', 'sampleData'] as const) {
        if (section in changes) definition[section] = changes[section];
      }
      if (isObject(changes.datasetConfig)) definition.datasetConfig = { ...(definition.datasetConfig as JsonObject), ...changes.datasetConfig };
      if (Array.isArray(changes.tags)) definition.tags = applyChanges(draft.tags, changes.tags as Change[]);
      for (const section of ['transformationsConfig', 'connectorsConfig'] as const) {
        const list = changes[section] as Change[] | undefined;
        if (!list) continue;
        checkItems(
          section,
          list.filter((change) => change.action === 'upsert').map((change) => change.value),
          'DATASET_UPDATE_INPUT_INVALID',
        );
        const upserts =
          section === 'connectorsConfig'
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
      if (isObject(changes.denormConfig)) {
        const { denorm_fields: fieldChanges, ...settings } = changes.denormConfig as JsonObject & { denorm_fields?: Change[] };
        const denorm = { ...(definition.denormConfig as JsonObject), ...settings };
        if (fieldChanges) {
          checkItems(
            'denorm_fields',
            fieldChanges.filter((change) => change.action === 'upsert').map((change) => change.value),
            'DATASET_UPDATE_INPUT_INVALID',
          );
          denorm.denorm_fields = applyChanges(Array.isArray(denorm.denorm_fields) ? denorm.denorm_fields : [], fieldChanges, ITEM_KEYS.denorm_fields);
        }
        checkDenormOutputs(denorm);
        definition.denormConfig = denorm;
      }
      if (isObject(changes.dataSchema)) {
        const removed = removedFieldPaths(definition.dataSchema, changes.dataSchema);
        definition.dataSchema = withoutRemovedRequired(changes.dataSchema, removed);
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
      const updated = await store.replaceDraftIfCurrent(values, versionKey, draft);
      if (!updated) throw outdated();
      return updated;
    },
  };
}
