// REST entry for PII analysis (contract 4.2): the records in `request.data`, findings as `result`.
import type { RestAnalyzePiiQuery, RestAnalyzePiiQueryVariables } from '../src/generated/rest-operations.js';
import { defineEndpoint } from './table.js';
import { envelopeSchema } from './validation.js';

/** What the analysis takes: the records of one dataset (the original's request id is carried, not used). */
const ANALYSIS_REQUEST = {
  type: 'object',
  properties: {
    id: { type: 'string', maxLength: 256 },
    dataset_id: { type: 'string', minLength: 1, maxLength: 200 },
    // How many records fit, and how large, is the service's rule (configured limits).
    data: { type: 'array', minItems: 1, items: { type: 'object' } },
  },
  required: ['dataset_id', 'data'],
  additionalProperties: false,
};

const ANALYSIS_OPERATION = /* GraphQL */ `
  query RestAnalyzePii($datasetId: ID!, $records: [JSON!]!) {
    analyzePii(datasetId: $datasetId, records: $records) {
      field
      type
      score
      reason {
        code
        resourceKey
        region
        score
      }
    }
  }
`;

const analysisVariables = (request: { dataset_id: string; data: unknown[] }) => ({ datasetId: request.dataset_id, records: request.data });

export const piiEndpoints = [
  defineEndpoint<RestAnalyzePiiQuery, RestAnalyzePiiQueryVariables>({
    method: 'POST',
    path: '/v2/data/analyze/pii',
    apiId: 'api.data.analyze.pii',
    summary: 'Find the fields of sample records that hold personal data',
    invalidInputCode: 'DATA_ANALYZE_PII_INVALID_INPUT',
    errorCodes: ['ERR_BAD_REQUEST'],
    bodySchema: envelopeSchema('api.data.analyze.pii', ANALYSIS_REQUEST, { requestRequired: true }),
    operation: ANALYSIS_OPERATION,
    variables: (input) => analysisVariables(input.body.request as { dataset_id: string; data: unknown[] }),
    result: (data) => data.analyzePii,
  }),

  // The original's console asks its "system" API instead, with the request as the body itself.
  defineEndpoint<RestAnalyzePiiQuery, RestAnalyzePiiQueryVariables>({
    method: 'POST',
    path: '/system/data/v1/analyze/pii',
    apiId: 'api.system.data.analyze.pii',
    summary: "Find the fields of sample records that hold personal data (the console's system API: no envelope around the request)",
    invalidInputCode: 'DATA_ANALYZE_PII_INVALID_INPUT',
    errorCodes: ['ERR_BAD_REQUEST'],
    bodySchema: ANALYSIS_REQUEST,
    operation: ANALYSIS_OPERATION,
    variables: (input) => analysisVariables(input.body as { dataset_id: string; data: unknown[] }),
    result: (data) => data.analyzePii,
  }),
];
