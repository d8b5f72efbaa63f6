// REST entry for schema inference (contract 4.1 `POST /v2/datasets/dataschema`). It runs the
// `inferSchema` query and gives its result the original's shape: maps where GraphQL has lists, and
// `removedKeys` only when something was removed.
import type { RestInferSchemaQuery, RestInferSchemaQueryVariables } from '../src/generated/rest-operations.js';
import { requestOfOperation, toInput, type InputShape } from './input-shape.js';
import { defineEndpoint } from './table.js';

/**
 * Sample events and the dataset they are for (the contract nests it in `config`). Shape only: how
 * many samples, and that each is an object, are the service's rules (one message on both transports).
 */
const INFER: InputShape = {
  type: /* GraphQL */ `
    query RestInferSchema($samples: [JSON]!, $dataset: String!) {
      inferSchema(samples: $samples, dataset: $dataset) {
        schema
        configurations {
          indexConfiguration {
            index {
              label
              path
            }
            rollupSuggestions {
              field
              path
              cardinality
              index
            }
          }
          processing {
            dedupKeys
            dropDuplicates
          }
        }
        dataMappings
        removedKeys {
          key
          value
        }
      }
    }
  `,
  rename: { data: 'samples', config: { group: { dataset: 'dataset' } } },
};

/** `[{label, path}]` as the original's `{label: path}`. fromEntries defines keys, so `__proto__` stays a key. */
function indexMap(options: readonly { label: string; path: string }[]): Record<string, string> {
  return Object.fromEntries(options.map(({ label, path }) => [label, path]));
}

function rollupSummary<T extends { field: string }>(rollup: readonly T[]): Record<string, Omit<T, 'field'>> {
  return Object.fromEntries(rollup.map(({ field, ...summary }) => [field, summary]));
}

export const dataschemaEndpoints = [
  defineEndpoint<RestInferSchemaQuery, RestInferSchemaQueryVariables>({
    method: 'POST',
    path: '/v2/datasets/dataschema',
    apiId: 'api.datasets.dataschema',
    summary: 'Infer a data schema from sample events',
    invalidInputCode: 'DATA_SCHEMA_INVALID_INPUT',
    errorCodes: [],
    ...requestOfOperation('api.datasets.dataschema', INFER, { requestRequired: true }),
    variables: (input) => toInput(INFER, input.body.request),
    result: (data) => {
      const inferred = data.inferSchema;
      const { indexConfiguration, processing } = inferred.configurations;
      return {
        schema: inferred.schema,
        configurations: {
          indexConfiguration: { index: indexMap(indexConfiguration.index), rollupSuggestions: { summary: rollupSummary(indexConfiguration.rollupSuggestions) } },
          processing,
        },
        dataMappings: inferred.dataMappings,
        ...(inferred.removedKeys.length > 0 ? { removedKeys: inferred.removedKeys } : {}),
      };
    },
  }),
];
