// REST entry for PII analysis (contract 4.2): the records in `request.data`, findings as `result`.
import type { RestAnalyzePiiQuery, RestAnalyzePiiQueryVariables } from '../src/generated/rest-operations.js';
import { inputSchema, toInput, type InputShape } from './input-shape.js';
import { defineEndpoint } from './table.js';
import { envelopeSchema } from './validation.js';

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

/** The records of one dataset: how many, how large and of what kind is the service's rule (configured limits). */
const ANALYSIS: InputShape = {
  type: ANALYSIS_OPERATION,
  rename: { dataset_id: 'datasetId', data: 'records' },
  // The original's request id is carried, not used.
  ignored: ['id'],
};
const ANALYSIS_REQUEST = inputSchema(ANALYSIS);

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
    variables: (input) => toInput(ANALYSIS, input.body.request),
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
    variables: (input) => toInput(ANALYSIS, input.body),
    result: (data) => data.analyzePii,
  }),
];
