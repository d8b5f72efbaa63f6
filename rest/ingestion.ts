// REST entry for ingestion (contract 4.2). The body is the envelope with `data` instead of `request`.
import { DATASET_ID_MAX_LENGTH } from '../src/modules/datasets/definition.js';
import { MAX_MSGID_LENGTH } from '../src/modules/ingestion/service.js';
import { defineEndpoint } from './table.js';

export const ingestionEndpoints = [
  defineEndpoint({
    method: 'POST',
    path: '/v2/data/in/:dataset_id',
    apiId: 'api.data.in',
    summary: 'Ingest one event or a batch of events into a Live dataset',
    invalidInputCode: 'DATA_INGESTION_INVALID_INPUT',
    largeBody: true,
    pathSchema: { type: 'object', properties: { dataset_id: { type: 'string', minLength: 1, maxLength: DATASET_ID_MAX_LENGTH } }, required: ['dataset_id'] },
    // As the original: the whole envelope is required here, with params.msgid.
    bodySchema: {
      type: 'object',
      properties: {
        id: { const: 'api.data.in' },
        ver: { type: 'string', maxLength: 16 },
        ts: { type: 'string', maxLength: 64 },
        params: { type: 'object', properties: { msgid: { type: 'string', minLength: 1, maxLength: MAX_MSGID_LENGTH } }, required: ['msgid'], additionalProperties: false },
        // Which item of a batch is wrong is said by the service (data/<n>), the same for GraphQL.
        data: { type: ['object', 'array'] },
      },
      required: ['id', 'ver', 'ts', 'params', 'data'],
      additionalProperties: false,
    },
    operation: `mutation RestIngest($datasetId: ID!, $data: JSON!, $msgid: String) {
      ingest(datasetId: $datasetId, data: $data, msgid: $msgid) { message }
    }`,
    variables: (input) => ({
      datasetId: input.path.dataset_id,
      data: input.body.data,
      msgid: (input.body.params as { msgid: string }).msgid,
    }),
    result: (data) => ({ message: (data.ingest as { message: string }).message }),
  }),
];
