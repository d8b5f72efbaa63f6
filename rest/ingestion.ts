// REST entry for ingestion (contract 4.2). The body is the envelope with `data` instead of `request`.
import type { RestCheckEventQuery, RestCheckEventQueryVariables, RestIngestMutation, RestIngestMutationVariables } from '../src/generated/rest-operations.js';
import { inputSchema, requestOfOperation, toInput, type InputShape } from './input-shape.js';
import { domainValues, ENUMS } from './enum-names.js';
import { defineEndpoint, pathParam, type ResponseHeader } from './table.js';
import type { Respelled } from './result-spelling.js';
import { besideEnvelope, type JsonSchema } from './validation.js';

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
        outcome
        accepted
        processed
        duplicates
        failed
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

const COUNT: JsonSchema = { type: 'integer', minimum: 0 };

/** What became of an ingest call's events, beside the contract's body (docs/datasets.md "Ingestion guarantees"). */
const INGEST_HEADERS: Readonly<Record<string, ResponseHeader<Respelled<RestIngestMutation>>>> = {
  'x-ingest-outcome': {
    description:
      'processed: the embedded event store processed the events in the call, the counts are final. queued: Kafka acknowledged them; ' +
      'processing happens downstream, so only x-events-accepted is sent.',
    schema: { type: 'string', enum: domainValues(ENUMS.IngestOutcome) },
    value: (data) => data.ingest.outcome,
  },
  'x-events-accepted': {
    description: 'Events taken in: stored or kept as failed (processed), or acknowledged by the broker (queued).',
    schema: COUNT,
    value: (data) => data.ingest.accepted,
  },
  'x-events-processed': { description: 'Events stored after processing (not sent when queued).', schema: COUNT, value: (data) => data.ingest.processed },
  'x-events-duplicates': { description: 'Events dropped as duplicates (not sent when queued).', schema: COUNT, value: (data) => data.ingest.duplicates },
  'x-events-failed': {
    description: "Events kept as failed, e.g. not matching the dataset's schema (not sent when queued). GraphQL's ingest names each one's position and reason.",
    schema: COUNT,
    value: (data) => data.ingest.failed,
  },
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
    // The contract's body stays as it is; what became of the events is told in headers (GraphQL's
    // IngestPayload says it, with each refused event's position and reason).
    result: (data) => ({ message: data.ingest.message }),
    responseHeaders: INGEST_HEADERS,
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
