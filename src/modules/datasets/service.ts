// Every business rule of datasets lives here; both transports call these functions.
import DataLoader from 'dataloader';
import { GatewayError } from '../../errors.js';
import type { QueryEngine } from '../../platform/query-engine/query-engine.js';
import { pathDeeperThan } from '../../validation/json-depth.js';
import { compileValidator } from '../../validation/json-schema.js';
import { isObject } from '../../validation/json-object.js';
import { unsupportedPatternIn } from '../../validation/linear-regexp.js';
import {
  connectorSchema,
  convertFlatDatasetConfig,
  datasetIdLengthProblem,
  datasetIdProblem,
  DEFAULT_ENTRY_TOPIC,
  denormFieldSchema,
  documentSchema,
  isNestedDatasetConfig,
  pathWithNul,
  transformationSchema,
  withCacheNames,
  withDefaults,
} from './definition.js';
import { checkFieldSelection, DOCUMENT_NAMES, fromDocument, toDocument } from '../../platform/dataset-document.js';
import { publishProblems, TRANSITION_RULES } from './lifecycle.js';
import { heldKeys } from '../../platform/lists/nested-list.js';
import { denormSourceLink, namedDatasetLink } from './list.js';
import { connectorPage, type ConnectorInstancePage, type ConnectorPageArguments } from './connector-page.js';
import { isUniqueViolation, type DatasetStore } from './store.js';
import {
  stageOf,
  type DatasetDraftValues,
  type DatasetListQuery,
  type DatasetPage,
  type DatasetRecord,
  type DatasetStatus,
  type DatasetType,
  type DatasetVersionStamp,
  type IgnoredFields,
  type JsonObject,
  type Stage,
  type Transition,
} from './types.js';
import type { Actor } from '../../auth/actor.js';
import type { ConnectorSecrets } from './connector-secrets.js';
import { createDraftingService, draftValues, nextVersionKey } from './drafting.js';
import { createDatasourceService } from './datasources.js';

export interface DatasetVersions {
  live?: DatasetRecord;
  draft?: DatasetRecord;
}

export interface ImportResult {
  datasetId: string;
  versionKey: string;
  /** Whether fields were dropped beyond a converted datasetConfig (the resolver words it). */
  partial: boolean;
  ignoredFields: IgnoredFields | null;
}

const validateDocument = compileValidator(documentSchema);
/** Deepest nesting a definition may have; real ones stay far below, and the store recurses. */
const MAX_DEFINITION_DEPTH = 32;
const validateDenormField = compileValidator(denormFieldSchema);
const validateTransformation = compileValidator(transformationSchema);
const validateConnector = compileValidator(connectorSchema);

/**
 * A dataset id no dataset can have is the caller's mistake, not a missing dataset: INVALID_INPUT,
 * which each REST entry answers under its own code (DATASET_READ_INVALID_INPUT, ...).
 */
function checkedId(datasetId: string, name = 'dataset_id'): string {
  const problem = datasetIdLengthProblem(datasetId);
  if (problem) throw new GatewayError('INVALID_INPUT', `${name} ${problem}`);
  return datasetId;
}

function notFound(datasetId: string): GatewayError {
  return new GatewayError('DATASET_NOT_FOUND', `Dataset with the given dataset_id:${datasetId} not found`);
}

/** The v2 form of a record's datasetConfig (flat v1 configs converted), and what the conversion dropped. */
function v2DatasetConfig(record: Pick<DatasetRecord, 'datasetConfig' | 'type'>): { config: JsonObject; dropped: string[] } {
  const config = withCacheNames(record.datasetConfig);
  return isNestedDatasetConfig(config) ? { config, dropped: [] } : convertFlatDatasetConfig(config, record.type);
}

export interface DatasetServiceOptions {
  listMax: number;
  /** Seals the connector configurations that create and update store. */
  connectorSecrets: ConnectorSecrets;
}

export function createDatasetService(store: DatasetStore, queryEngine: QueryEngine, options: DatasetServiceOptions) {
  /** A draft made from another version (edit of Live, copy): v2 form, status Draft. */
  function draftFrom(source: DatasetRecord, overrides: Partial<DatasetDraftValues>, actor: Actor): DatasetDraftValues {
    const { config } = v2DatasetConfig(source);
    const flatTopic = isNestedDatasetConfig(source.datasetConfig) ? undefined : source.datasetConfig.entry_topic;
    const { createdDate: _c, updatedDate: _u, publishedDate: _p, ...values } = source;
    return {
      ...values,
      stage: 'draft',
      status: 'Draft',
      apiVersion: 'v2',
      datasetConfig: config,
      denormConfig: withCacheNames(source.denormConfig),
      entryTopic: source.entryTopic ?? (typeof flatTopic === 'string' && flatTopic ? flatTopic : DEFAULT_ENTRY_TOPIC),
      versionKey: nextVersionKey(),
      createdBy: actor.id,
      updatedBy: actor.id,
      ...overrides,
    };
  }

  async function findStage(datasetId: string, stage: Stage): Promise<DatasetRecord | undefined> {
    return store.find(datasetId, stage);
  }

  /** Checks each denorm field, transformation and connector on its own; bad ones are dropped and listed. */
  async function filterItems(definition: JsonObject, datasetId: string): Promise<IgnoredFields> {
    const ignored: IgnoredFields = {};
    const keep = (key: keyof IgnoredFields, items: unknown[], check: (item: unknown) => string | undefined): unknown[] => {
      const kept: unknown[] = [];
      for (const item of items) {
        const problem = check(item);
        if (problem === undefined) kept.push(item);
        else (ignored[key] ??= []).push({ config: item, details: problem });
      }
      return kept;
    };

    const denorm = definition.denormConfig as JsonObject;
    const fields = keep('denorm_fields', denorm.denorm_fields as unknown[], validateDenormField);
    const referenced = [...new Set(fields.map((field) => (field as JsonObject).dataset_id as string))];
    const masters = new Set((await store.liveMasters(referenced)).map((master) => master.datasetId));
    denorm.denorm_fields = keep('denorm_fields', fields, (field) => {
      const source = (field as JsonObject).dataset_id as string;
      if (source === datasetId) return 'a dataset cannot denormalise from itself';
      return masters.has(source) ? undefined : `Master dataset ${source} does not exist or is not Live`;
    });
    definition.transformationsConfig = keep('transformations', definition.transformationsConfig as unknown[], validateTransformation);
    definition.connectorsConfig = keep('connectors', definition.connectorsConfig as unknown[], validateConnector);
    return ignored;
  }

  return {
    ...createDraftingService(store, options.connectorSecrets),
    ...createDatasourceService(store, queryEngine, options),

    /** Throws DATASET_NOT_FOUND unless a version of the dataset (Live or draft) exists. */
    async requireExisting(datasetId: string): Promise<void> {
      const versions = await store.findVersions([checkedId(datasetId)]);
      if (versions.length === 0) throw notFound(datasetId);
    },

    /** The stage, status, version and last change of the newest `limit` dataset versions (by their last change). */
    versionStamps(limit: number): Promise<DatasetVersionStamp[]> {
      return store.versionStamps(limit);
    },

    /** Batches every version lookup of one request into one statement. */
    createLoader(): DataLoader<string, DatasetVersions> {
      return new DataLoader(async (ids) => {
        const byId = new Map<string, DatasetVersions>();
        for (const record of await store.findVersions(ids)) {
          const versions = byId.get(record.datasetId) ?? {};
          versions[record.stage] = record;
          byId.set(record.datasetId, versions);
        }
        return ids.map((id) => byId.get(id) ?? {});
      });
    },

    /** The Live version (Live or Retired) by default, or the version holding `status`. */
    async get(datasetId: string, options: { stage?: Stage; status?: DatasetStatus | null } = {}, loader?: DataLoader<string, DatasetVersions>): Promise<DatasetRecord> {
      checkedId(datasetId);
      const stage: Stage = options.status ? stageOf(options.status) : (options.stage ?? 'live');
      const record = loader ? (await loader.load(datasetId))[stage] : await findStage(datasetId, stage);
      if (!record || (options.status && record.status !== options.status)) throw notFound(datasetId);
      return record;
    },

    /**
     * A definition that import takes back (the original's export): the Live version by default, or
     * the draft when `status` names a draft status, which must be ReadyToPublish (a Draft is not
     * complete; a Retired dataset is not exported).
     */
    async export(datasetId: string, status?: DatasetStatus | null): Promise<JsonObject> {
      const record = await findStage(checkedId(datasetId), status && status !== 'Live' && status !== 'Retired' ? 'draft' : 'live');
      if (!record) throw new GatewayError('DATASET_NOT_FOUND', `Dataset with the given dataset_id:${datasetId} not found to export`);
      if (record.status !== 'Live' && record.status !== 'ReadyToPublish') {
        throw new GatewayError('DATASET_EXPORT_FAILURE', `Dataset with status:${record.status} cannot be exported`);
      }
      // The alias names this gateway's datasource, not the definition (the original's export drops it too).
      const { alias: _alias, ...definition } = toDocument(record);
      return definition;
    },

    /** The draft to edit: the existing one (converted to v2 if needed), or a new one made from Live. */
    async edit(datasetId: string, actor: Actor): Promise<DatasetRecord> {
      const draft = await findStage(checkedId(datasetId), 'draft');
      if (draft) {
        if (draft.apiVersion === 'v2' && isNestedDatasetConfig(draft.datasetConfig)) return draft;
        return store.replace(draftFrom(draft, { status: draft.status, versionKey: draft.versionKey, createdBy: draft.createdBy }, actor));
      }
      const live = await findStage(datasetId, 'live');
      if (!live) throw notFound(datasetId);
      try {
        return await store.insert(draftFrom(live, { version: live.version + 1 }, actor));
      } catch (error) {
        // Two editors opening the same dataset at once: the first draft wins and both get it.
        if (isUniqueViolation(error)) return (await findStage(datasetId, 'draft'))!;
        throw error;
      }
    },

    /** A page of datasets; with `fields` (what the reader's selection needs), each record holds only those. */
    async list(query: DatasetListQuery, fields?: ReadonlySet<string>): Promise<DatasetPage> {
      return store.page(query, options.listMax, fields);
    },

    /**
     * A page of the Live datasets `dataset` denormalises from (`Dataset.denormSourcePage`), by the
     * dataset list's contract; the datasets of one request (`request`) that ask alike share one statement.
     */
    denormSourcePage(request: object, dataset: Pick<DatasetRecord, 'denormSources'>, query: DatasetListQuery): Promise<DatasetPage> {
      return store.denormSourcePage(request, heldKeys(denormSourceLink, dataset.denormSources), query, options.listMax);
    },

    /** A page of the dataset's connector instances (`Dataset.connectorPage`), cut from its definition: no statement. */
    connectorPage(dataset: Pick<DatasetRecord, 'connectorsConfig'>, query: ConnectorPageArguments): ConnectorInstancePage {
      return connectorPage(dataset, query, options.listMax);
    },

    /** A page of the datasets named by `datasetIds` (`QueryTemplate.datasetPage`): each its Live version, else its draft; batched as denormSourcePage. */
    namedDatasetPage(request: object, datasetIds: readonly string[], query: DatasetListQuery): Promise<DatasetPage> {
      return store.namedDatasetPage(request, heldKeys(namedDatasetLink, datasetIds), query, options.listMax);
    },

    async importDefinition(input: unknown, options: { overwrite: boolean }, actor: Actor): Promise<ImportResult> {
      if (!isObject(input)) throw new GatewayError('DATASET_IMPORT_INVALID_CONFIGS', 'the definition must be a JSON object');
      const tooDeep = pathDeeperThan(input, MAX_DEFINITION_DEPTH);
      if (tooDeep !== undefined) {
        throw new GatewayError('DATASET_IMPORT_INVALID_CONFIGS', `the definition is nested deeper than ${MAX_DEFINITION_DEPTH} levels (at ${tooDeep.slice(0, 200)})`);
      }
      const withNul = pathWithNul(input);
      if (withNul !== undefined) {
        throw new GatewayError('DATASET_IMPORT_INVALID_CONFIGS', `the definition holds a NUL character (\\u0000), which cannot be stored (at ${JSON.stringify(withNul.slice(0, 200)).slice(1, -1)})`);
      }
      // The definition is a document (the original's file format): checked in its own names, then read in the domain's.
      const document = withCacheNames(input);
      const invalid = validateDocument(document);
      if (invalid) throw new GatewayError('DATASET_IMPORT_INVALID_CONFIGS', invalid);
      const given = fromDocument(document);
      const badPattern = unsupportedPatternIn(given.dataSchema, DOCUMENT_NAMES.dataSchema);
      if (badPattern) throw new GatewayError('DATASET_IMPORT_INVALID_CONFIGS', badPattern);

      const datasetId = given.datasetId as string;
      const type = given.type as DatasetType;
      const ignoredFields: IgnoredFields = {};
      // Fields the gateway sets (status, version, dates: what an export carries) are replaced, not
      // dropped: a clean import of an exported definition lists nothing as ignored.

      // Convert a flat (v1) datasetConfig before defaults fill the gaps, so its keys land in their v2 places.
      const givenConfig = given.datasetConfig as JsonObject;
      const { config: convertedConfig, dropped } = v2DatasetConfig({ datasetConfig: givenConfig, type });
      if (dropped.length > 0) {
        (ignoredFields[DOCUMENT_NAMES.datasetConfig] ??= []).push(
          ...dropped.map((key) => ({ config: { [key]: givenConfig[key] }, details: `has no place in the v2 ${DOCUMENT_NAMES.datasetConfig}` })),
        );
      }
      const flatTopic = isNestedDatasetConfig(givenConfig) ? undefined : givenConfig.entry_topic;
      const definition = withDefaults(
        { ...given, datasetConfig: convertedConfig, ...(typeof flatTopic === 'string' && flatTopic && !('entryTopic' in given) ? { entryTopic: flatTopic } : {}) },
        datasetId,
      );
      Object.assign(ignoredFields, await filterItems(definition, datasetId));

      const [draft, live] = await Promise.all([findStage(datasetId, 'draft'), findStage(datasetId, 'live')]);
      if (draft && !options.overwrite) {
        throw new GatewayError('DATASET_EXISTS', `Dataset with dataset_id: ${datasetId} already exists.`);
      }
      const values = draftValues(definition, {
        datasetId,
        status: 'Draft',
        version: draft?.version ?? (live ? live.version + 1 : 1),
        versionKey: nextVersionKey(),
        createdBy: draft?.createdBy ?? actor.id,
        updatedBy: actor.id,
      });
      let stored: DatasetRecord;
      try {
        stored = draft ? await store.replace(values) : await store.insert(values);
      } catch (error) {
        if (isUniqueViolation(error)) throw new GatewayError('DATASET_EXISTS', `Dataset with dataset_id: ${datasetId} already exists.`);
        throw error;
      }
      return {
        datasetId: stored.datasetId,
        versionKey: stored.versionKey,
        partial: Object.keys(ignoredFields).some((key) => key !== DOCUMENT_NAMES.datasetConfig),
        ignoredFields: Object.keys(ignoredFields).length > 0 ? ignoredFields : null,
      };
    },

    async copy(input: { sourceId: string; sourceStage: Stage; destinationId: string }, actor: Actor): Promise<DatasetRecord> {
      const badId = datasetIdProblem(input.destinationId);
      if (badId) throw new GatewayError('DATASET_COPY_INVALID_INPUT', `destinationId ${JSON.stringify(input.destinationId.slice(0, 60))} ${badId}`);
      const badSource = datasetIdLengthProblem(input.sourceId);
      if (badSource) throw new GatewayError('DATASET_COPY_INVALID_INPUT', `sourceId ${badSource}`);
      const source = await findStage(input.sourceId, input.sourceStage);
      if (!source) throw new GatewayError('DATASET_NOT_EXISTS', `Dataset ${input.sourceId} does not exist`);
      const taken = await store.findVersions([input.destinationId]);
      const alreadyExists = () => new GatewayError('DATASET_ALREADY_EXISTS', `Dataset with id ${input.destinationId} already exists`);
      if (taken.length > 0) throw alreadyExists();
      const clone = draftFrom(
        source,
        { datasetId: input.destinationId, version: 1, routerConfig: { ...(source.routerConfig ?? {}), topic: input.destinationId }, entryTopic: DEFAULT_ENTRY_TOPIC },
        actor,
      );
      try {
        return await store.insert(clone);
      } catch (error) {
        if (isUniqueViolation(error)) throw alreadyExists();
        throw error;
      }
    },

    /**
     * Applies one move of the lifecycle (contract section 3) in one transaction; the record it leaves,
     * or null after Delete. Both transports hand over a member of the lifecycle (REST maps the original's `Retire`).
     */
    async transition(datasetId: string, transition: Transition, actor: Actor): Promise<DatasetRecord | null> {
      const versions = await store.findVersions([checkedId(datasetId)]);
      const byStage = Object.fromEntries(versions.map((record) => [record.stage, record])) as DatasetVersions;
      const notFound = () => new GatewayError('DATASET_NOT_FOUND', `Dataset not found for dataset: ${datasetId}`);
      if (versions.length === 0) throw notFound();

      if (transition === 'Delete') {
        const users = await store.dependents(datasetId, ['Live']);
        if (users.length > 0) {
          throw new GatewayError('DATASET_IN_USE', `Dataset ${datasetId} cannot be deleted while Live datasets denormalise from it: ${users.map((u) => u.datasetId).join(', ')}`);
        }
        await store.remove(datasetId);
        await queryEngine.dropQueryable(datasetId);
        return null;
      }

      const rule = TRANSITION_RULES[transition];
      const record = byStage[rule.stage];
      const current = record ?? byStage[rule.stage === 'live' ? 'draft' : 'live']!;
      if (!record || record.status !== rule.from) {
        throw new GatewayError(rule.failure, `Transition failed for dataset: ${datasetId} status:${current.status} with status transition to ${transition}`);
      }

      if (rule.stage === 'draft') {
        // Both moves of a draft (ReadyToPublish, Live) need it complete.
        const problems = publishProblems(record);
        if (problems.length > 0) {
          throw new GatewayError('DATASET_CONFIGS_INVALID', [
            `The draft of ${datasetId} is not ready to publish: `,
            ...problems.flatMap((problem, index) => (index === 0 ? problem : ['; ', ...problem])),
          ]);
        }
      }

      if (transition === 'ReadyToPublish') {
        const ready = await store.setStatus(datasetId, 'draft', 'ReadyToPublish', actor.id);
        // A version deleted since the read above is not there to move.
        if (!ready) throw notFound();
        return ready;
      }

      if (transition === 'Live') {
        if (record.denormSources.includes(datasetId)) {
          throw new GatewayError('SELF_REFERENCING_MASTER_DATA', 'The denorm master dataset is self-referencing itself');
        }
        const masters = new Set((await store.liveMasters(record.denormSources)).map((master) => master.datasetId));
        const missing = record.denormSources.filter((source) => !masters.has(source));
        if (missing.length > 0) {
          throw new GatewayError('DEPENDENT_MASTER_DATA_NOT_LIVE', `The datasets with id:${missing.join(',')} are not Live master datasets`);
        }
        const { createdDate: _c, updatedDate: _u, publishedDate: _p, ...values } = record;
        const live = await store.transaction(async (tx) => {
          const published = await tx.replace(
            { ...values, stage: 'live', status: 'Live', entryTopic: record.entryTopic || DEFAULT_ENTRY_TOPIC, createdBy: byStage.live?.createdBy ?? record.createdBy, updatedBy: actor.id },
            new Date(),
          );
          await tx.remove(datasetId, 'draft');
          return published;
        });
        await queryEngine.ensureQueryable(live);
        return live;
      }

      // Retired
      const users = await store.dependents(datasetId, ['Live']);
      if (users.length > 0) {
        throw new GatewayError(
          'DATASET_IN_USE',
          `Failed to retire dataset as it is in use. Please retire or delete dependent datasets before retiring this dataset (${users.map((u) => u.datasetId).join(', ')})`,
        );
      }
      // A retired dataset gives up its alias (as the original), so another may take it.
      await store.setAlias(datasetId, null);
      const retired = await store.setStatus(datasetId, 'live', 'Retired', actor.id);
      if (!retired) throw notFound();
      await queryEngine.dropQueryable(datasetId);
      return retired;
    },

    /** The version as a definition document, narrowed to `fields` (unknown names refused). */
    document(record: DatasetRecord, fields: readonly string[] | null | undefined): JsonObject {
      const full = toDocument(record);
      checkFieldSelection(fields ?? [], (field) => Object.hasOwn(full, field));
      return fields && fields.length > 0 ? Object.fromEntries(fields.map((field) => [field, full[field]])) : full;
    },
  };
}

export type DatasetService = ReturnType<typeof createDatasetService>;
