// REST entry for ingestion (contract 4.2). The body is the envelope with `data` instead of `request`.
import type { RestCheckEventQuery, RestCheckEventQueryVariables, RestIngestMutation, RestIngestMutationVariables } from '../src/generated/rest-operations.js';
import { defineEndpoint, pathParam } from './table.js';
import { envelopeFields, envelopeSchema } from './validation.js';

export const ingestionEndpoints = [
  defineEndpoint<RestIngestMutation, RestIngestMutationVariables>({
    method: 'POST',
    path: '/v2/data/in/:dataset_id',
    apiId: 'api.data.in',
    summary: 'Ingest one event or a batch of events into a Live dataset',
    invalidInputCode: 'DATA_INGESTION_INVALID_INPUT',
    errorCodes: ['DATASET_NOT_FOUND', 'TOPIC_NOT_FOUND', 'EVENT_BUS_UNAVAILABLE'],
    // The contract gives ingestion's lookups responseCode BAD_REQUEST; they answer HTTP 404.
    errorPresentation: { DATASET_NOT_FOUND: { kind: 'BAD_REQUEST', httpStatus: 404 }, TOPIC_NOT_FOUND: { kind: 'BAD_REQUEST', httpStatus: 404 } },
    largeBody: true,
    // As the original: the whole envelope is required here, with params.msgid. Shape only: the dataset
    // id's and the msgid's lengths are the service's rules (one message on both transports).
    bodySchema: {
      type: 'object',
      properties: {
        ...envelopeFields('api.data.in', { msgid: { type: 'string', minLength: 1 } }),
        // Which item of a batch is wrong is said by the service (data/<n>), the same for GraphQL.
        data: { type: ['object', 'array'] },
      },
      required: ['id', 'ver', 'ts', 'params', 'data'],
      additionalProperties: false,
    },
    operation: /* GraphQL */ `
      mutation RestIngest($datasetId: ID!, $data: JSON!, $msgid: String) {
        ingest(datasetId: $datasetId, data: $data, msgid: $msgid) {
          message
        }
      }
    `,
    variables: (input) => ({
      datasetId: pathParam(input, 'dataset_id'),
      data: input.body.data,
      msgid: (input.body.params as { msgid: string }).msgid,
    }),
    result: (data) => ({ message: data.ingest.message }),
  }),

  defineEndpoint<RestCheckEventQuery, RestCheckEventQueryVariables>({
    method: 'POST',
    path: '/v2/schema/validate',
    apiId: 'api.schema.validator',
    summary: "Check an event against a dataset's Live schema (isLive true) or its draft's",
    invalidInputCode: 'SCHEMA_VALIDATOR_INVALID_INPUT',
    errorCodes: ['DATASET_NOT_EXISTS'],
    bodySchema: envelopeSchema(
      'api.schema.validator',
      {
        type: 'object',
        properties: { datasetId: { type: 'string' }, isLive: { type: 'boolean' }, event: { type: 'object' } },
        required: ['datasetId', 'isLive', 'event'],
        additionalProperties: false,
      },
      { requestRequired: true },
    ),
    operation: /* GraphQL */ `
      query RestCheckEvent($datasetId: ID!, $version: DatasetVersion, $event: JSON!) {
        checkEvent(datasetId: $datasetId, version: $version, event: $event) {
          isValid
          message
        }
      }
    `,
    variables: (input) => {
      const r = input.body.request as { datasetId: string; isLive: boolean; event: unknown };
      return { datasetId: r.datasetId, version: r.isLive ? 'LIVE' : 'DRAFT', event: r.event };
    },
    result: (data) => {
      const check = data.checkEvent;
      return { message: check.message, isValid: check.isValid };
    },
  }),
];
