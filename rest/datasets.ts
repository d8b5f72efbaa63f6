// REST entries for datasets (contract 4.1). Each runs a GraphQL operation; the record itself comes
// from `Dataset.definition`, which already speaks the contract's snake_case shape.
import { DATASET_ID_MAX_LENGTH, DATASET_ID_PATTERN, DEFAULT_LIVE_READ_FIELDS, DRAFT_LIST_EXTRA_FIELDS, LIST_FIELDS } from '../src/modules/datasets/definition.js';
import { cursorForOffset } from '../src/graphql/cursor.js';
import { defineEndpoint, type RestInput } from './table.js';
import { envelopeSchema } from './validation.js';

const STATUS_ENUM: Record<string, string> = { Draft: 'DRAFT', ReadyToPublish: 'READY_TO_PUBLISH', Live: 'LIVE', Retired: 'RETIRED' };
const TRANSITION_ENUM: Record<string, string> = { ReadyToPublish: 'READY_TO_PUBLISH', Live: 'LIVE', Retired: 'RETIRED', Retire: 'RETIRED', Delete: 'DELETE' };
const datasetId = { type: 'string', minLength: 1, maxLength: DATASET_ID_MAX_LENGTH };
const newDatasetId = { ...datasetId, pattern: DATASET_ID_PATTERN };

function request(input: RestInput): Record<string, any> {
  return (input.body.request ?? {}) as Record<string, any>;
}

function fieldList(value: unknown): string[] | null {
  if (typeof value !== 'string' || value.trim() === '') return null;
  return value.split(',').map((field) => field.trim()).filter(Boolean);
}

export const datasetEndpoints = [
  defineEndpoint({
    method: 'POST',
    path: '/v2/datasets/import',
    apiId: 'api.datasets.import',
    summary: 'Import a dataset definition as its draft',
    invalidInputCode: 'DATASET_IMPORT_INVALID_CONFIGS',
    querySchema: { type: 'object', properties: { overwrite: { type: 'string', enum: ['true', 'false'] } } },
    // The definition itself is checked by the service (the same check GraphQL gets).
    bodySchema: envelopeSchema('api.datasets.import', { type: 'object' }, { requestRequired: true }),
    operation: `mutation RestImportDataset($definition: JSON!, $overwrite: Boolean) {
      importDataset(definition: $definition, overwrite: $overwrite) { id versionKey message ignoredFields }
    }`,
    variables: (input) => ({ definition: input.body.request, overwrite: input.query.overwrite !== 'false' }),
    result: (data) => {
      const imported = data.importDataset as { id: string; versionKey: string; message: string; ignoredFields: unknown };
      return {
        message: imported.message,
        data: { id: imported.id, version_key: imported.versionKey },
        ...(imported.ignoredFields ? { ignoredFields: imported.ignoredFields } : {}),
      };
    },
  }),

  defineEndpoint({
    method: 'GET',
    path: '/v2/datasets/read/:dataset_id',
    apiId: 'api.datasets.read',
    resultFrom: ['datasets'],
    summary: 'Read a dataset (Live by default; mode=edit gives the draft, creating it from Live)',
    invalidInputCode: 'DATASET_READ_INVALID_INPUT',
    pathSchema: { type: 'object', properties: { dataset_id: datasetId }, required: ['dataset_id'] },
    querySchema: {
      type: 'object',
      properties: {
        mode: { type: 'string', maxLength: 20 },
        fields: { type: 'string', maxLength: 2000 },
        status: { type: 'string', enum: Object.keys(STATUS_ENUM) },
      },
    },
    operation: {
      read: `query RestReadDataset($id: ID!, $status: DatasetStatus, $fields: [String!]) {
        dataset(id: $id, status: $status) { definition(fields: $fields) }
      }`,
      edit: `mutation RestEditDataset($id: ID!, $fields: [String!]) { editDataset(id: $id) { definition(fields: $fields) } }`,
    },
    chooseOperation: (input) => (input.query.mode === 'edit' ? 'edit' : 'read'),
    // mode=edit makes a draft from Live: a write, which a read-only role may not do.
    operationApiIds: { edit: 'api.datasets.update' },
    variables: (input) => {
      const status = typeof input.query.status === 'string' ? input.query.status : undefined;
      // A Live read gives the record of contract 2.1; draft reads give the whole definition.
      const draftRead = input.query.mode === 'edit' || status === 'Draft' || status === 'ReadyToPublish';
      return {
        id: input.path.dataset_id,
        status: status ? STATUS_ENUM[status] : null,
        fields: fieldList(input.query.fields) ?? (draftRead ? null : DEFAULT_LIVE_READ_FIELDS),
      };
    },
    result: (data) => ((data.dataset ?? data.editDataset) as { definition: unknown }).definition,
  }),

  defineEndpoint({
    method: 'POST',
    path: '/v2/datasets/list',
    apiId: 'api.datasets.list',
    resultFrom: ['datasets'],
    summary: 'List datasets: Live versions first, then drafts',
    invalidInputCode: 'DATASET_LIST_INPUT_INVALID',
    bodySchema: envelopeSchema(
      'api.datasets.list',
      {
        type: 'object',
        properties: {
          filters: {
            type: 'object',
            properties: {
              status: {
                anyOf: [
                  { type: 'string', enum: Object.keys(STATUS_ENUM) },
                  { type: 'array', items: { type: 'string', enum: Object.keys(STATUS_ENUM) }, maxItems: 10 },
                ],
              },
              type: { type: 'string', enum: ['event', 'master'] },
            },
            additionalProperties: false,
          },
          limit: { type: 'integer', minimum: 0 },
          offset: { type: 'integer', minimum: 0 },
        },
        additionalProperties: false,
      },
      { requestRequired: false },
    ),
    operation: `query RestListDatasets($filter: DatasetFilter, $first: Int, $after: String, $fields: [String!], $draftFields: [String!]) {
      datasets(filter: $filter, first: $first, after: $after) {
        totalCount
        nodes { stage record: definition(fields: $fields) draftExtras: definition(fields: $draftFields) }
      }
    }`,
    variables: (input) => {
      const r = request(input);
      const statuses = r.filters?.status === undefined ? null : [r.filters.status].flat().map((status: string) => STATUS_ENUM[status]);
      return {
        filter: { status: statuses, type: r.filters?.type ? String(r.filters.type).toUpperCase() : null },
        first: r.limit ?? null,
        after: r.offset ? cursorForOffset(r.offset - 1) : null,
        fields: LIST_FIELDS,
        draftFields: DRAFT_LIST_EXTRA_FIELDS,
      };
    },
    result: (data) => {
      const page = data.datasets as { totalCount: number; nodes: { stage: string; record: object; draftExtras: object }[] };
      return {
        data: page.nodes.map((node) => (node.stage === 'DRAFT' ? { ...node.record, ...node.draftExtras } : node.record)),
        count: page.totalCount,
      };
    },
  }),

  defineEndpoint({
    method: 'POST',
    path: '/v2/datasets/copy',
    apiId: 'api.datasets.copy',
    summary: 'Clone a dataset version into a new draft',
    invalidInputCode: 'DATASET_COPY_INVALID_INPUT',
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
          destination: { type: 'object', properties: { datasetId: newDatasetId }, required: ['datasetId'], additionalProperties: false },
        },
        required: ['source', 'destination'],
        additionalProperties: false,
      },
      { requestRequired: true },
    ),
    operation: `mutation RestCopyDataset($input: CopyDatasetInput!) { copyDataset(input: $input) { message dataset { id } } }`,
    variables: (input) => {
      const r = request(input);
      return { input: { sourceId: r.source.datasetId, sourceVersion: r.source.isLive ? 'LIVE' : 'DRAFT', destinationId: r.destination.datasetId } };
    },
    result: (data) => {
      const copied = data.copyDataset as { message: string; dataset: { id: string } };
      return { dataset_id: copied.dataset.id, message: copied.message };
    },
  }),

  defineEndpoint({
    method: 'POST',
    path: '/v2/datasets/status-transition',
    apiId: 'api.datasets.status-transition',
    summary: 'Move a dataset through its lifecycle',
    invalidInputCode: 'DATASET_STATUS_TRANSITION_INVALID_INPUT',
    bodySchema: envelopeSchema(
      'api.datasets.status-transition',
      {
        type: 'object',
        properties: { dataset_id: datasetId, status: { type: 'string', enum: Object.keys(TRANSITION_ENUM) } },
        required: ['dataset_id', 'status'],
        additionalProperties: false,
      },
      { requestRequired: true },
    ),
    operation: `mutation RestTransitionDataset($id: ID!, $to: DatasetTransition!) { transitionDataset(id: $id, to: $to) { id message } }`,
    variables: (input) => {
      const r = request(input);
      return { id: r.dataset_id, to: TRANSITION_ENUM[r.status] };
    },
    result: (data) => {
      const moved = data.transitionDataset as { id: string; message: string };
      return { message: moved.message, dataset_id: moved.id };
    },
  }),

  defineEndpoint({
    method: 'GET',
    path: '/v2/datasets/export/:dataset_id',
    apiId: 'api.datasets.export',
    summary: 'Export a dataset definition that import takes back (Live by default; status=ReadyToPublish for the draft)',
    invalidInputCode: 'DATASET_EXPORT_INVALID_INPUT',
    errorCodes: ['DATASET_NOT_FOUND', 'DATASET_EXPORT_FAILURE'],
    pathSchema: { type: 'object', properties: { dataset_id: datasetId }, required: ['dataset_id'] },
    querySchema: { type: 'object', properties: { status: { type: 'string', enum: Object.keys(STATUS_ENUM) } } },
    operation: `query RestExportDataset($id: ID!, $status: DatasetStatus) { exportDataset(id: $id, status: $status) }`,
    variables: (input) => ({ id: input.path.dataset_id, status: typeof input.query.status === 'string' ? STATUS_ENUM[input.query.status] : null }),
    result: (data) => data.exportDataset,
  }),
];
