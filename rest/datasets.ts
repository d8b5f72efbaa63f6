// REST entries for datasets (contract 4.1). Each runs a GraphQL operation; the record itself comes
// from `Dataset.definition`, which already speaks the contract's snake_case shape.
import type {
  RestCopyDatasetMutation,
  RestCopyDatasetMutationVariables,
  RestCreateDatasetMutation,
  RestCreateDatasetMutationVariables,
  RestEditDatasetMutation,
  RestEditDatasetMutationVariables,
  RestExportDatasetQuery,
  RestExportDatasetQueryVariables,
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
} from '../src/generated/rest-operations.js';
import { domainValue, domainValues, enumName, ENUMS } from './enum-names.js';
import { cursorForOffset } from '../src/graphql/cursor.js';
import { inputSchema, inputTypeSchema, requestOfOperation, toInput, toInputList, type InputShape } from './input-shape.js';
import { defineEndpoint, isEditMode, pathParam, requestOf } from './table.js';
import { envelopeSchema, type JsonSchema } from './validation.js';

const STATUSES = domainValues(ENUMS.DatasetStatus);
/** The original's `Retire` is accepted beside the contract's `Retired`. */
const TRANSITIONS = [...domainValues(ENUMS.DatasetTransition), 'Retire'];
const status = (value: string) => enumName(ENUMS.DatasetStatus, value);
// A dataset id's length and pattern are the services' rules (src/modules/datasets/definition.ts), one message on both transports.
const datasetId = { type: 'string' };

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

const listFilter = inputTypeSchema('DatasetFilter') as { properties: { status: { items: JsonSchema } } };

/** The list's request: its filters and page size as the operation's variables; a status may also be one value, and the offset is REST's own. */
const LIST: InputShape = {
  type: /* GraphQL */ `
    query RestListDatasets($filter: DatasetFilter, $first: Int, $after: String) {
      datasets(filter: $filter, first: $first, after: $after) {
        totalCount
        nodes {
          listRecord
        }
      }
    }
  `,
  rename: { filters: 'filter', limit: 'first' },
  own: {
    filters: { ...listFilter, properties: { ...listFilter.properties, status: { anyOf: [listFilter.properties.status.items, listFilter.properties.status] } } },
    offset: { type: 'integer', minimum: 0 },
  },
};

export const datasetEndpoints = [
  defineEndpoint<RestImportDatasetMutation, RestImportDatasetMutationVariables>({
    method: 'POST',
    path: '/v2/datasets/import',
    apiId: 'api.datasets.import',
    summary: 'Import a dataset definition as its draft',
    invalidInputCode: 'DATASET_IMPORT_INVALID_CONFIGS',
    errorCodes: ['DATASET_CONFIGS_INVALID', 'DATASET_EXISTS', 'DATASET_ALREADY_EXISTS'],
    querySchema: { type: 'object', properties: { overwrite: { type: 'string', enum: ['true', 'false'] } } },
    // The definition itself is checked by the service (the same check GraphQL gets).
    bodySchema: envelopeSchema('api.datasets.import', { type: 'object' }, { requestRequired: true }),
    operation: /* GraphQL */ `
      mutation RestImportDataset($definition: JSON!, $overwrite: Boolean) {
        importDataset(definition: $definition, overwrite: $overwrite) {
          id
          versionKey
          message
          ignoredFields
        }
      }
    `,
    variables: (input) => ({ definition: input.body.request, overwrite: input.query.overwrite !== 'false' }),
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
    pathSchema: { type: 'object', properties: { dataset_id: datasetId }, required: ['dataset_id'] },
    querySchema: {
      type: 'object',
      properties: {
        mode: { type: 'string' },
        fields: { type: 'string', maxLength: 2000 },
        status: { type: 'string', enum: STATUSES },
      },
    },
    operation: {
      read: /* GraphQL */ `
        query RestReadDataset($id: ID!, $status: DatasetStatus, $fields: [String!]) {
          dataset(id: $id, status: $status) {
            definition(fields: $fields)
          }
        }
      `,
      edit: /* GraphQL */ `
        mutation RestEditDataset($id: ID!, $fields: [String!]) {
          editDataset(id: $id) {
            definition(fields: $fields)
          }
        }
      `,
    },
    chooseOperation: (input) => (isEditMode(input) ? 'edit' : 'read'),
    // mode=edit makes a draft from Live: a write, which a read-only role may not do.
    operationApiIds: { edit: 'api.datasets.update' },
    variables: (input) => {
      const wanted = typeof input.query.status === 'string' ? input.query.status : undefined;
      // A Live read gives the record of contract 2.1; draft reads give the whole definition.
      const draftRead = isEditMode(input) || wanted === 'Draft' || wanted === 'ReadyToPublish';
      return {
        id: pathParam(input, 'dataset_id'),
        status: wanted ? status(wanted) : null,
        fields: fieldList(input.query.fields) ?? (draftRead ? null : LIVE_READ_FIELDS),
      };
    },
    result: (data) => ('editDataset' in data ? data.editDataset.definition : data.dataset?.definition),
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
      const r = requestOf<{ filters?: { status?: string | string[] }; offset?: number }>(input);
      const status = r.filters?.status;
      const given = toInput<RestListDatasetsQueryVariables>(LIST, status === undefined ? r : { ...r, filters: { ...r.filters, status: [status].flat() } });
      return { filter: given.filter ?? null, first: given.first ?? null, after: r.offset ? cursorForOffset(r.offset - 1) : null };
    },
    result: (data) => ({ data: data.datasets.nodes.map((node) => node.listRecord), count: data.datasets.totalCount }),
  }),

  defineEndpoint<RestCopyDatasetMutation, RestCopyDatasetMutationVariables>({
    method: 'POST',
    path: '/v2/datasets/copy',
    apiId: 'api.datasets.copy',
    summary: 'Clone a dataset version into a new draft',
    invalidInputCode: 'DATASET_COPY_INVALID_INPUT',
    errorCodes: ['DATASET_NOT_FOUND', 'DATASET_NOT_EXISTS', 'DATASET_ALREADY_EXISTS', 'DATASET_EXISTS'],
    bodySchema: envelopeSchema(
      'api.datasets.copy',
      {
        type: 'object',
        properties: {
          source: {
            type: 'object',
            properties: { datasetId, isLive: { type: 'boolean' } },
            required: ['datasetId', 'isLive'],
            additionalProperties: false,
          },
          destination: { type: 'object', properties: { datasetId }, required: ['datasetId'], additionalProperties: false },
        },
        required: ['source', 'destination'],
        additionalProperties: false,
      },
      { requestRequired: true },
    ),
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
    variables: (input) => {
      const r = requestOf<{ source: { datasetId: string; isLive: boolean }; destination: { datasetId: string } }>(input);
      return { input: { sourceId: r.source.datasetId, sourceVersion: r.source.isLive ? 'LIVE' : 'DRAFT', destinationId: r.destination.datasetId } };
    },
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
    bodySchema: envelopeSchema(
      'api.datasets.status-transition',
      {
        type: 'object',
        properties: { dataset_id: datasetId, status: { type: 'string', enum: TRANSITIONS } },
        required: ['dataset_id', 'status'],
        additionalProperties: false,
      },
      { requestRequired: true },
    ),
    operation: /* GraphQL */ `
      mutation RestTransitionDataset($id: ID!, $to: DatasetTransition!) {
        transitionDataset(id: $id, to: $to) {
          id
          message
        }
      }
    `,
    variables: (input) => {
      const r = requestOf<{ dataset_id: string; status: string }>(input);
      return { id: r.dataset_id, to: enumName(ENUMS.DatasetTransition, r.status === 'Retire' ? 'Retired' : r.status) };
    },
    result: (data) => {
      const moved = data.transitionDataset;
      return { message: moved.message, dataset_id: moved.id };
    },
  }),

  defineEndpoint<RestExportDatasetQuery, RestExportDatasetQueryVariables>({
    method: 'GET',
    path: '/v2/datasets/export/:dataset_id',
    apiId: 'api.datasets.export',
    summary: 'Export a dataset definition that import takes back (Live by default; status=ReadyToPublish for the draft)',
    invalidInputCode: 'DATASET_EXPORT_INVALID_INPUT',
    errorCodes: ['DATASET_NOT_FOUND', 'DATASET_EXPORT_FAILURE'],
    pathSchema: { type: 'object', properties: { dataset_id: datasetId }, required: ['dataset_id'] },
    querySchema: { type: 'object', properties: { status: { type: 'string', enum: STATUSES } } },
    operation: /* GraphQL */ `
      query RestExportDataset($id: ID!, $status: DatasetStatus) {
        exportDataset(id: $id, status: $status)
      }
    `,
    variables: (input) => ({ id: pathParam(input, 'dataset_id'), status: typeof input.query.status === 'string' ? status(input.query.status) : null }),
    result: (data) => data.exportDataset,
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
    bodySchema: envelopeSchema(
      'api.datasets.alias',
      {
        type: 'object',
        properties: { dataset_id: datasetId, alias_name: { type: 'string' }, table_name: { type: 'string' } },
        required: ['dataset_id', 'alias_name'],
        additionalProperties: false,
      },
      { requestRequired: true },
    ),
    operation: /* GraphQL */ `
      mutation RestSetDatasetAlias($id: ID!, $alias: String!, $table: String) {
        setDatasetAlias(id: $id, alias: $alias, table: $table) {
          id: datasetId
          alias
        }
      }
    `,
    variables: (input) => {
      const r = requestOf<{ dataset_id: string; alias_name: string; table_name?: string }>(input);
      return { id: r.dataset_id, alias: r.alias_name, table: r.table_name ?? null };
    },
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
    pathSchema: { type: 'object', properties: { dataset_id: datasetId }, required: ['dataset_id'] },
    bodySchema: envelopeSchema(
      'api.datasets.reset',
      { type: 'object', properties: { category: { type: 'string', enum: ['processing', 'query'] } }, required: ['category'], additionalProperties: false },
      { requestRequired: true },
    ),
    operation: /* GraphQL */ `
      mutation RestResetDataset($id: ID!, $category: ResetCategory!) {
        resetDataset(id: $id, category: $category) {
          status
        }
      }
    `,
    variables: (input) => ({ id: pathParam(input, 'dataset_id'), category: enumName(ENUMS.ResetCategory, requestOf<{ category: string }>(input).category) }),
    result: (data) => data.resetDataset,
  }),

  defineEndpoint<RestListDatasourcesQuery, RestListDatasourcesQueryVariables>({
    method: 'POST',
    path: '/v2/datasources/list',
    apiId: 'api.datasources.list',
    summary: 'List the datasources of Live datasets (Druid datasources, or the embedded views)',
    invalidInputCode: 'DATASOURCE_LIST_INPUT_INVALID',
    errorCodes: [],
    bodySchema: envelopeSchema(
      'api.datasources.list',
      {
        type: 'object',
        properties: {
          filters: {
            type: 'object',
            properties: {
              status: {
                anyOf: [
                  { type: 'string', enum: [...STATUSES, 'Purged'] },
                  { type: 'array', items: { type: 'string', enum: [...STATUSES, 'Purged'] }, maxItems: 10 },
                ],
              },
              type: { type: 'string', enum: ['druid', 'datalake', 'embedded'] },
            },
            additionalProperties: false,
          },
        },
        additionalProperties: false,
      },
      { requestRequired: false },
    ),
    operation: /* GraphQL */ `
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
    variables: (input) => {
      const { filters } = requestOf<{ filters?: { status?: string | string[]; type?: string } }>(input);
      // Purged datasources are never kept here: asking only for them lists nothing.
      const statuses = filters?.status === undefined ? null : [filters.status].flat().map((value) => status(value === 'Purged' ? 'Retired' : value));
      return { filter: { status: statuses, type: filters?.type ?? null } };
    },
    result: (data) => {
      const entries = data.datasources;
      const rows = entries.map((entry) => ({
        datasource: entry.datasource,
        datasource_ref: entry.datasourceRef,
        dataset_id: entry.datasetId,
        status: domainValue(ENUMS.DatasetStatus, entry.status),
        type: entry.type,
        alias: entry.alias,
        is_primary: entry.isPrimary,
      }));
      return { data: rows, count: rows.length };
    },
  }),
];
