// REST entries for datasets (contract 4.1). Each runs a GraphQL operation; the record is projected
// here from the typed fields of `Dataset` (result-shape.ts), the settings sections as written.
import type {
  RestCopyDatasetMutation,
  RestCopyDatasetMutationVariables,
  RestCreateDatasetMutation,
  RestCreateDatasetMutationVariables,
  RestEditDatasetMutation,
  RestEditDatasetMutationVariables,
  RestExportDatasetQuery,
  RestExportDatasetQueryVariables,
  RestStartDatasetExportMutation,
  RestStartDatasetExportMutationVariables,
  RestImportDatasetMutation,
  RestImportDatasetMutationVariables,
  RestListDatasetsQuery,
  RestListDatasetsQueryVariables,
  RestListDatasourcesQuery,
  RestListDatasourcesQueryVariables,
  RestReadDatasetQuery,
  RestReadDatasetQueryVariables,
  RestResetDatasetMutation,
  RestResetDatasetMutationVariables,
  RestSetDatasetAliasMutation,
  RestSetDatasetAliasMutationVariables,
  RestTransitionDatasetMutation,
  RestTransitionDatasetMutationVariables,
  RestUpdateDatasetMutation,
  RestUpdateDatasetMutationVariables,
  ItemChange,
  RestDatasetRecordFragment,
} from '../src/generated/rest-operations.js';
import { fieldSchema, inputSchema, inputTypeSchema, offset, pageVariables, parametersOf, requestOfOperation, toInput, toInputList, urlVariables, type InputShape, type Rename } from './input-shape.js';
import { defineEndpoint, EDIT_MODE, isEditMode, pathParam, requestOf } from './table.js';
import { envelopeSchema } from './validation.js';
import { JOB_FIELDS } from './jobs.js';
import { project, shapeSchema, type FieldPath, type ResultShape } from './result-shape.js';
import type { Respelled } from './result-spelling.js';
import { checkFieldSelection, DOCUMENT_NAMES, listDocumentNames, VERSION_FIELDS } from '../src/platform/dataset-document.js';

// A dataset id's length and pattern are the services' rules (src/modules/datasets/definition.ts): one
// message on both transports. How a URL names the read's and the export's variables:
const DATASET_URL = { path: { dataset_id: 'id' }, query: { status: 'status' } };
const IMPORT_URL = { query: { overwrite: 'overwrite' } };

/** What a dataset record is read from: the version's typed fields, and its settings sections as written (their key order is the writer's). */
const DATASET_RECORD_FIELDS = /* GraphQL */ `
  fragment RestDatasetRecord on Dataset {
    datasetId
    name
    type
    status
    stage
    tags
    version
    versionKey
    apiVersion
    dataSchema
    sectionsAsWritten {
      extractionConfig
      validationConfig
      dedupConfig
      denormConfig
      routerConfig
      datasetConfig
      transformations
      connectors
    }
    sampleData
    entryTopic
    createdBy
    updatedBy
    createdAt
    updatedAt
    publishedAt
    alias
  }
`;

type DatasetResult = Respelled<RestDatasetRecordFragment>;

/** Where the record's fields are in the result, where not at the field of the same name: the settings sections as written, the dates. */
const RECORD_PATHS: Partial<Record<(typeof VERSION_FIELDS)[number], FieldPath<DatasetResult>>> = {
  extractionConfig: 'sectionsAsWritten.extractionConfig',
  validationConfig: 'sectionsAsWritten.validationConfig',
  dedupConfig: 'sectionsAsWritten.dedupConfig',
  denormConfig: 'sectionsAsWritten.denormConfig',
  routerConfig: 'sectionsAsWritten.routerConfig',
  datasetConfig: 'sectionsAsWritten.datasetConfig',
  transformationsConfig: 'sectionsAsWritten.transformations',
  connectorsConfig: 'sectionsAsWritten.connectors',
  createdDate: 'createdAt',
  updatedDate: 'updatedAt',
  publishedDate: 'publishedAt',
};

/** The record of contract 2.1: a definition document (src/platform/dataset-document.ts), key by key in its order. */
const DATASET_RECORD: ResultShape<DatasetResult> = {
  id: 'datasetId',
  ...Object.fromEntries(VERSION_FIELDS.map((field) => [DOCUMENT_NAMES[field], RECORD_PATHS[field] ?? (field as FieldPath<DatasetResult>)])),
};

/** A read's record: the keys `fields` selects (refused when unknown or too long), else the whole record. */
function datasetRecord(dataset: DatasetResult, selection: readonly string[] | null) {
  checkFieldSelection(selection ?? [], (field) => Object.hasOwn(DATASET_RECORD, field));
  return project(DATASET_RECORD, dataset, selection ?? undefined);
}

/** Fields a Live read returns when `fields` is not given: the record of contract 2.1, plus what the original always adds. */
const LIVE_READ_FIELDS = ['dataset_id', 'name', 'type', 'status', 'tags', 'version', 'api_version', 'dataset_config', 'transformations_config', 'connectors_config'];

/** The sections create and update both take: contract name → GraphQL input field. */
const SECTIONS = {
  dataset_id: 'id',
  type: 'type',
  data_schema: 'dataSchema',
  dataset_config: 'datasetConfig',
  extraction_config: 'extractionConfig',
  validation_config: 'validationConfig',
  dedup_config: 'dedupConfig',
  transformations_config: 'transformations',
  connectors_config: 'connectors',
  tags: 'tags',
  sample_data: 'sampleData',
} as const;

const CREATE: InputShape = {
  type: 'CreateDatasetInput',
  rename: { ...SECTIONS, name: 'name', denorm_config: 'denormConfig' },
  // A whole definition may be sent back (the console does): what the gateway sets itself is accepted and not used.
  ignored: [
    'id',
    'status',
    'version',
    'version_key',
    'api_version',
    'data_version',
    'router_config',
    'entry_topic',
    'created_by',
    'updated_by',
    'created_date',
    'updated_date',
    'published_date',
    'alias',
  ],
};

const UPDATE: InputShape = {
  type: 'UpdateDatasetInput',
  rename: { ...SECTIONS, version_key: 'versionKey', name: 'name' },
  // denorm_config is two GraphQL fields: its settings, and its denorm_fields as a change list.
  own: { denorm_config: { type: 'object', properties: { denorm_fields: { type: 'array', items: inputTypeSchema('ItemChange') } } } },
};

function fieldList(value: unknown): string[] | null {
  if (typeof value !== 'string' || value.trim() === '') return null;
  return value
    .split(',')
    .map((field) => field.trim())
    .filter(Boolean);
}

/** The older filters of the dataset and datasource lists: a status may also be one value. */
const FILTERS: Rename = { filters: { field: 'filter', rename: { status: { field: 'status', oneOrList: true }, type: 'type' } } };

/** The list's request: its filters and page size as the operation's variables; the offset is REST's own. */
const LIST: InputShape = {
  type: /* GraphQL */ `
    query RestListDatasets($filter: DatasetFilter, $first: Int, $after: String) {
      datasets(filter: $filter, first: $first, after: $after) {
        totalCount
        nodes {
          ...RestDatasetRecord
        }
      }
    }
    ${DATASET_RECORD_FIELDS}
  `,
  rename: { ...FILTERS, limit: 'first' },
  own: { offset },
};

const IMPORT_OPERATION = /* GraphQL */ `
  mutation RestImportDataset($definition: JSON!, $overwrite: Boolean) {
    importDataset(definition: $definition, overwrite: $overwrite) {
      id
      versionKey
      message
      ignoredFields
    }
  }
`;

const READ_OPERATION = /* GraphQL */ `
  query RestReadDataset($id: ID!, $status: DatasetStatus) {
    dataset(id: $id, status: $status) {
      ...RestDatasetRecord
    }
  }
  ${DATASET_RECORD_FIELDS}
`;

const EXPORT_OPERATION = /* GraphQL */ `
  query RestExportDataset($id: ID!, $status: DatasetStatus) {
    exportDataset(id: $id, status: $status)
  }
`;

/** The new draft's source and id, which the contract nests in `source` and `destination`. */
const COPY: InputShape = {
  type: 'CopyDatasetInput',
  rename: {
    source: { group: { datasetId: 'sourceId', isLive: { field: 'sourceVersion', flag: ['LIVE', 'DRAFT'] } } },
    destination: { group: { datasetId: 'destinationId' } },
  },
};

const TRANSITION: InputShape = {
  type: /* GraphQL */ `
    mutation RestTransitionDataset($id: ID!, $to: DatasetTransition!) {
      transitionDataset(id: $id, to: $to) {
        id
        message
      }
    }
  `,
  rename: { dataset_id: 'id', status: 'to' },
  // The original's `Retire` is taken beside the contract's `Retired`.
  otherSpellings: { DatasetTransition: { Retire: 'RETIRED' } },
};

const ALIAS: InputShape = {
  type: /* GraphQL */ `
    mutation RestSetDatasetAlias($id: ID!, $alias: String!, $table: String) {
      setDatasetAlias(id: $id, alias: $alias, table: $table) {
        id: datasetId
        alias
      }
    }
  `,
  rename: { dataset_id: 'id', alias_name: 'alias', table_name: 'table' },
};

/** The category of a reset; its dataset is the path's. */
const RESET: InputShape = {
  type: /* GraphQL */ `
    mutation RestResetDataset($id: ID!, $category: ResetCategory!) {
      resetDataset(id: $id, category: $category) {
        status
      }
    }
  `,
  rename: { category: 'category' },
};

/** The datasource list's filters; the original's `Purged` lists what Retired does (nothing: only Live datasets have datasources). */
const DATASOURCES: InputShape = {
  type: /* GraphQL */ `
    query RestListDatasources($filter: DatasourceFilter) {
      datasources(filter: $filter) {
        datasource
        datasourceRef
        datasetId
        status
        type
        alias
        isPrimary
      }
    }
  `,
  rename: FILTERS,
  otherSpellings: { DatasetStatus: { Purged: 'RETIRED' } },
};

/** A row of the datasource list, in the contract's names. */
const DATASOURCE_ROW: ResultShape<Respelled<RestListDatasourcesQuery['datasources'][number]>> = {
  datasource: 'datasource',
  datasource_ref: 'datasourceRef',
  dataset_id: 'datasetId',
  status: 'status',
  type: 'type',
  alias: 'alias',
  is_primary: 'isPrimary',
};

export const datasetEndpoints = [
  defineEndpoint<RestImportDatasetMutation, RestImportDatasetMutationVariables>({
    method: 'POST',
    path: '/v2/datasets/import',
    apiId: 'api.datasets.import',
    summary: 'Import a dataset definition as its draft',
    invalidInputCode: 'DATASET_IMPORT_INVALID_CONFIGS',
    errorCodes: ['DATASET_CONFIGS_INVALID', 'DATASET_EXISTS', 'DATASET_ALREADY_EXISTS'],
    ...parametersOf(IMPORT_OPERATION, IMPORT_URL),
    // The definition itself is checked by the service (the same check GraphQL gets).
    bodySchema: envelopeSchema('api.datasets.import', fieldSchema(IMPORT_OPERATION, 'definition'), { requestRequired: true }),
    operation: IMPORT_OPERATION,
    variables: (input) => ({ ...urlVariables<Omit<RestImportDatasetMutationVariables, 'definition'>>(IMPORT_OPERATION, IMPORT_URL, input), definition: input.body.request }),
    result: (data) => {
      const imported = data.importDataset;
      return {
        message: imported.message,
        data: { id: imported.id, version_key: imported.versionKey },
        ...(imported.ignoredFields ? { ignoredFields: imported.ignoredFields } : {}),
      };
    },
  }),

  defineEndpoint<RestReadDatasetQuery | RestEditDatasetMutation, RestReadDatasetQueryVariables | RestEditDatasetMutationVariables>({
    method: 'GET',
    path: '/v2/datasets/read/:dataset_id',
    apiId: 'api.datasets.read',
    summary: 'Read a dataset (Live by default; mode=edit gives the draft, creating it from Live)',
    invalidInputCode: 'DATASET_READ_INVALID_INPUT',
    errorCodes: ['DATASET_NOT_FOUND', 'DATASET_INVALID_FIELDS'],
    ...parametersOf(READ_OPERATION, {
      ...DATASET_URL,
      ownQuery: { ...EDIT_MODE, fields: { type: 'string', description: 'Only these top-level keys of the record, separated by commas.' } },
    }),
    operation: {
      read: READ_OPERATION,
      edit: /* GraphQL */ `
        mutation RestEditDataset($id: ID!) {
          editDataset(id: $id) {
            ...RestDatasetRecord
          }
        }
        ${DATASET_RECORD_FIELDS}
      `,
    },
    chooseOperation: (input) => (isEditMode(input) ? 'edit' : 'read'),
    // mode=edit makes a draft from Live: a write, which a read-only role may not do.
    operationApiIds: { edit: 'api.datasets.update' },
    variables: (input) => urlVariables<RestReadDatasetQueryVariables>(READ_OPERATION, DATASET_URL, input),
    selection: (input) => {
      const wanted = input.query.status;
      // A Live read gives the record of contract 2.1; draft reads give the whole definition.
      const draftRead = isEditMode(input) || wanted === 'Draft' || wanted === 'ReadyToPublish';
      return fieldList(input.query.fields) ?? (draftRead ? null : LIVE_READ_FIELDS);
    },
    resultSchema: shapeSchema('Dataset', DATASET_RECORD),
    result: (data, selection) => {
      const dataset = 'editDataset' in data ? data.editDataset : data.dataset;
      return dataset && datasetRecord(dataset, selection);
    },
  }),

  defineEndpoint<RestListDatasetsQuery, RestListDatasetsQueryVariables>({
    method: 'POST',
    path: '/v2/datasets/list',
    apiId: 'api.datasets.list',
    summary: 'List datasets: Live versions first, then drafts',
    invalidInputCode: 'DATASET_LIST_INPUT_INVALID',
    errorCodes: [],
    ...requestOfOperation('api.datasets.list', LIST, { requestRequired: false }),
    variables: (input) => {
      const { offset } = requestOf<{ offset?: number }>(input);
      const given = toInput<RestListDatasetsQueryVariables>(LIST, input.body.request);
      return pageVariables(given, offset);
    },
    resultSchema: {
      type: 'object',
      properties: {
        data: { type: 'array', items: shapeSchema('Dataset', DATASET_RECORD, { keys: listDocumentNames('draft') }), description: 'Each version: a draft also shows its configuration.' },
        count: { type: 'integer', description: 'How many versions match the filters, over all pages.' },
      },
      required: ['data', 'count'],
    },
    result: (data) => ({ data: data.datasets.nodes.map((node) => project(DATASET_RECORD, node, listDocumentNames(node.stage === 'draft' ? 'draft' : 'live'))), count: data.datasets.totalCount }),
  }),

  defineEndpoint<RestCopyDatasetMutation, RestCopyDatasetMutationVariables>({
    method: 'POST',
    path: '/v2/datasets/copy',
    apiId: 'api.datasets.copy',
    summary: 'Clone a dataset version into a new draft',
    invalidInputCode: 'DATASET_COPY_INVALID_INPUT',
    errorCodes: ['DATASET_NOT_FOUND', 'DATASET_NOT_EXISTS', 'DATASET_ALREADY_EXISTS', 'DATASET_EXISTS'],
    bodySchema: envelopeSchema('api.datasets.copy', inputSchema(COPY), { requestRequired: true }),
    operation: /* GraphQL */ `
      mutation RestCopyDataset($input: CopyDatasetInput!) {
        copyDataset(input: $input) {
          message
          dataset {
            id: datasetId
          }
        }
      }
    `,
    variables: (input) => ({ input: toInput(COPY, input.body.request) }),
    result: (data) => {
      const copied = data.copyDataset;
      return { dataset_id: copied.dataset.id, message: copied.message };
    },
  }),

  defineEndpoint<RestTransitionDatasetMutation, RestTransitionDatasetMutationVariables>({
    method: 'POST',
    path: '/v2/datasets/status-transition',
    apiId: 'api.datasets.status-transition',
    summary: 'Move a dataset through its lifecycle',
    invalidInputCode: 'DATASET_STATUS_TRANSITION_INVALID_INPUT',
    errorCodes: [
      'DATASET_NOT_FOUND',
      'DATASET_LIVE_FAILURE',
      'DATASET_READYTOPUBLISH_FAILURE',
      'DATASET_RETIRE_FAILURE',
      'DATASET_IN_USE',
      'DEPENDENT_MASTER_DATA_NOT_LIVE',
      'SELF_REFERENCING_MASTER_DATA',
      'DATASET_CONFIGS_INVALID',
    ],
    ...requestOfOperation('api.datasets.status-transition', TRANSITION, { requestRequired: true }),
    variables: (input) => toInput(TRANSITION, input.body.request),
    result: (data) => {
      const moved = data.transitionDataset;
      return { message: moved.message, dataset_id: moved.id };
    },
  }),

  defineEndpoint<RestExportDatasetQuery | RestStartDatasetExportMutation, RestExportDatasetQueryVariables | RestStartDatasetExportMutationVariables>({
    method: 'GET',
    path: '/v2/datasets/export/:dataset_id',
    apiId: 'api.datasets.export',
    summary: 'Export a dataset definition that import takes back (Live by default; status=ReadyToPublish for the draft); with Prefer: respond-async, as a job: 202 with its status link',
    invalidInputCode: 'DATASET_EXPORT_INVALID_INPUT',
    errorCodes: ['DATASET_NOT_FOUND', 'DATASET_EXPORT_FAILURE'],
    ...parametersOf(EXPORT_OPERATION, DATASET_URL),
    operation: {
      export: EXPORT_OPERATION,
      job: /* GraphQL */ `
        mutation RestStartDatasetExport($id: String!, $status: DatasetStatus) {
          startDatasetExport(id: $id, status: $status) {
            ...RestJobFields
          }
        }
        ${JOB_FIELDS}
      `,
    },
    chooseOperation: (input) => (input.respondAsync ? 'job' : 'export'),
    startsJob: 'when-asked',
    variables: (input) => urlVariables<RestExportDatasetQueryVariables>(EXPORT_OPERATION, DATASET_URL, input),
    result: (data) => ('startDatasetExport' in data ? data.startDatasetExport : data.exportDataset),
  }),

  defineEndpoint<RestCreateDatasetMutation, RestCreateDatasetMutationVariables>({
    method: 'POST',
    path: '/v2/datasets/create',
    apiId: 'api.datasets.create',
    summary: 'Create the draft of a new dataset from a partial definition (defaults fill the rest)',
    invalidInputCode: 'DATASET_INVALID_INPUT',
    errorCodes: ['DATASET_EXISTS', 'DATASET_DUPLICATE_DENORM_KEY'],
    bodySchema: envelopeSchema('api.datasets.create', inputSchema(CREATE), { requestRequired: true }),
    operation: /* GraphQL */ `
      mutation RestCreateDataset($input: CreateDatasetInput!) {
        createDataset(input: $input) {
          id: datasetId
          versionKey
        }
      }
    `,
    variables: (input) => ({ input: toInput(CREATE, input.body.request) }),
    result: (data) => {
      const created = data.createDataset;
      return { id: created.id, version_key: created.versionKey };
    },
  }),

  defineEndpoint<RestUpdateDatasetMutation, RestUpdateDatasetMutationVariables>({
    method: 'PATCH',
    path: '/v2/datasets/update',
    apiId: 'api.datasets.update',
    summary: 'Change a draft section by section; version_key guards against lost updates',
    invalidInputCode: 'DATASET_UPDATE_INPUT_INVALID',
    errorCodes: ['DATASET_UPDATE_NO_FIELDS', 'DATASET_NOT_EXISTS', 'DATASET_OUTDATED', 'DATASET_NOT_IN_DRAFT_STATE_TO_UPDATE', 'DATASET_DUPLICATE_DENORM_KEY'],
    bodySchema: envelopeSchema('api.datasets.update', inputSchema(UPDATE), { requestRequired: true }),
    operation: /* GraphQL */ `
      mutation RestUpdateDataset($input: UpdateDatasetInput!) {
        updateDataset(input: $input) {
          id: datasetId
          versionKey
        }
      }
    `,
    variables: (input) => {
      const { denorm_config: denorm } = requestOf<{ denorm_config?: Record<string, unknown> }>(input);
      const { denorm_fields: denormFields, ...denormSettings } = denorm ?? {};
      return {
        input: {
          ...toInput<RestUpdateDatasetMutationVariables['input']>(UPDATE, input.body.request),
          denormSettings: Object.keys(denormSettings).length > 0 ? denormSettings : null,
          denormFields: toInputList<ItemChange>('ItemChange', denormFields),
        },
      };
    },
    result: (data) => {
      const updated = data.updateDataset;
      return { message: 'Dataset is updated successfully', id: updated.id, version_key: updated.versionKey };
    },
  }),

  defineEndpoint<RestSetDatasetAliasMutation, RestSetDatasetAliasMutationVariables>({
    method: 'POST',
    path: '/v2/datasets/alias',
    apiId: 'api.datasets.alias',
    summary: 'Give a Live dataset an alias its data can also be queried by',
    invalidInputCode: 'DATASET_ALIAS_INPUT_INVALID',
    errorCodes: ['ALIAS_NAME_INVALID', 'ALIAS_NOT_UNIQUE', 'DATASET_NOT_EXISTS', 'TABLE_NOT_EXISTS'],
    ...requestOfOperation('api.datasets.alias', ALIAS, { requestRequired: true }),
    variables: (input) => toInput(ALIAS, input.body.request),
    result: (data) => {
      const named = data.setDatasetAlias;
      return { message: `Dataset alias name '${named.alias}' updated successfully`, dataset_id: named.id };
    },
  }),

  defineEndpoint<RestResetDatasetMutation, RestResetDatasetMutationVariables>({
    method: 'POST',
    path: '/v2/datasets/reset/:dataset_id',
    apiId: 'api.datasets.reset',
    summary: 'Put one side of a Live dataset back: category query remakes its datasource',
    invalidInputCode: 'DATASET_RESET_INPUT_INVALID',
    errorCodes: ['DATASET_NOT_FOUND'],
    ...parametersOf(RESET.type, { path: { dataset_id: 'id' } }),
    ...requestOfOperation('api.datasets.reset', RESET, { requestRequired: true }),
    variables: (input) => ({ id: pathParam(input, 'dataset_id'), ...toInput<Pick<RestResetDatasetMutationVariables, 'category'>>(RESET, input.body.request) }),
    result: (data) => data.resetDataset,
  }),

  defineEndpoint<RestListDatasourcesQuery, RestListDatasourcesQueryVariables>({
    method: 'POST',
    path: '/v2/datasources/list',
    apiId: 'api.datasources.list',
    summary: 'List the datasources of Live datasets (Druid datasources, or the embedded views)',
    invalidInputCode: 'DATASOURCE_LIST_INPUT_INVALID',
    errorCodes: [],
    ...requestOfOperation('api.datasources.list', DATASOURCES, { requestRequired: false }),
    variables: (input) => ({ filter: toInput<RestListDatasourcesQueryVariables>(DATASOURCES, input.body.request).filter ?? null }),
    resultSchema: {
      type: 'object',
      properties: { data: { type: 'array', items: shapeSchema('Datasource', DATASOURCE_ROW, { allRequired: true }) }, count: { type: 'integer', description: 'How many datasources are listed.' } },
      required: ['data', 'count'],
    },
    result: (data) => ({ data: data.datasources.map((entry) => project(DATASOURCE_ROW, entry)), count: data.datasources.length }),
  }),
];
