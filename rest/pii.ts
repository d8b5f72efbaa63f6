// REST entry for PII analysis (contract 4.2): the records in `request.data`, findings as `result`.
import type { RestAnalyzePiiQuery, RestAnalyzePiiQueryVariables } from '../src/generated/rest-operations.js';
import { defineEndpoint } from './table.js';
import { envelopeSchema } from './validation.js';

export const piiEndpoints = [
  defineEndpoint<RestAnalyzePiiQuery, RestAnalyzePiiQueryVariables>({
    method: 'POST',
    path: '/v2/data/analyze/pii',
    apiId: 'api.data.analyze.pii',
    summary: 'Find the fields of sample records that hold personal data',
    invalidInputCode: 'DATA_ANALYZE_PII_INVALID_INPUT',
    errorCodes: ['ERR_BAD_REQUEST'],
    bodySchema: envelopeSchema(
      'api.data.analyze.pii',
      {
        type: 'object',
        properties: {
          // The original's request id; carried, not used.
          id: { type: 'string', maxLength: 256 },
          dataset_id: { type: 'string', minLength: 1, maxLength: 200 },
          // How many records fit, and how large, is the service's rule (configured limits).
          data: { type: 'array', minItems: 1, items: { type: 'object' } },
        },
        required: ['dataset_id', 'data'],
        additionalProperties: false,
      },
      { requestRequired: true },
    ),
    operation: /* GraphQL */ `
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
    `,
    variables: (input) => {
      const request = input.body.request as { dataset_id: string; data: unknown[] };
      return { datasetId: request.dataset_id, records: request.data };
    },
    result: (data) => data.analyzePii,
  }),
];
