// REST entry for ingestion (contract 4.2). The body is the envelope with `data` instead of `request`.
import type { RestCheckEventQuery, RestCheckEventQueryVariables, RestIngestMutation, RestIngestMutationVariables } from '../src/generated/rest-operations.js';
import { inputSchema, requestOfOperation, toInput, type InputShape } from './input-shape.js';
import { defineEndpoint, pathParam } from './table.js';
import { besideEnvelope } from './validation.js';

/**
 * An ingest call's events, beside the whole envelope (the original requires it, params.msgid too).
 * Shape only: what `data` must hold, and the dataset id's and msgid's lengths, are the service's
 * rules (one message on both transports).
 */
const INGEST: InputShape = {
  type: /* GraphQL */ `
    mutation RestIngest($datasetId: ID!, $data: JSON!, $msgid: String) {
      ingest(datasetId: $datasetId, data: $data, msgid: $msgid) {
        message
      }
    }
  `,
  rename: { data: 'data' },
};

/** An event to check, and whether against the Live schema (isLive true) or the draft's. */
const CHECK: InputShape = {
  type: /* GraphQL */ `
    query RestCheckEvent($datasetId: ID!, $version: DatasetVersion, $event: JSON!) {
      checkEvent(datasetId: $datasetId, version: $version, event: $event) {
        isValid
        message
      }
    }
  `,
  rename: { datasetId: 'datasetId', isLive: { field: 'version', flag: ['LIVE', 'DRAFT'] }, event: 'event' },
  // GraphQL checks against the Live schema when no version is given; the contract's call names it.
  required: ['isLive'],
};

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
    bodySchema: besideEnvelope('api.data.in', inputSchema(INGEST), { msgid: { type: 'string' } }),
    operation: INGEST.type,
    // Read as is, not through toInput: this is the hot path, and the schema has already held the body to this shape.
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
    ...requestOfOperation('api.schema.validator', CHECK, { requestRequired: true }),
    variables: (input) => toInput(CHECK, input.body.request),
    result: (data) => {
      const check = data.checkEvent;
      return { message: check.message, isValid: check.isValid };
    },
  }),
];
