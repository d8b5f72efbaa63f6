// REST entry for dataset health metrics (contract 4.1; note the singular `dataset` in the path).
// GraphQL spells enum values in capitals; the contract in snake case (statuses as Healthy/Unhealthy),
// and a component carries only the fields it has.
import type { RestDatasetHealthQuery, RestDatasetHealthQueryVariables, RestDatasetMetricsQuery, RestDatasetMetricsQueryVariables } from '../src/generated/rest-operations.js';
import { inputSchema, requestOfOperation, toInput, type InputShape } from './input-shape.js';
import { withoutNulls } from './result-shape.js';
import { defineEndpoint } from './table.js';
import { envelopeSchema } from './validation.js';

/** The original's health endpoint spells Unhealthy "UnHealthy" (reference §7); its clients compare with that. */
const healthStatus = (status: string) => (status === 'Unhealthy' ? 'UnHealthy' : status);

// The requests name the operations' variables (their ranges and emptiness are the services' rules).
const METRICS: InputShape = {
  type: /* GraphQL */ `
    query RestDatasetMetrics($id: ID!, $categories: [MetricCategory!], $period: Int) {
      dataset(id: $id) {
        metrics(categories: $categories, period: $period) {
          category
          status
          components {
            type
            threshold
            value
            status
            id
          }
        }
      }
    }
  `,
  // category is optional (the contract's choice over the original's): without it, every category.
  rename: { dataset_id: 'id', category: 'categories', query_time_period: 'period' },
};

const HEALTH: InputShape = {
  type: /* GraphQL */ `
    query RestDatasetHealth($id: ID!, $categories: [HealthCategory!]!) {
      datasetHealth(datasetId: $id, categories: $categories) {
        status
        details {
          category
          status
          components {
            type
            status
            message
          }
        }
      }
    }
  `,
  rename: { dataset_id: 'id', categories: 'categories' },
};

export const metricsEndpoints = [
  defineEndpoint<RestDatasetMetricsQuery, RestDatasetMetricsQueryVariables>({
    method: 'POST',
    path: '/v2/dataset/metrics',
    apiId: 'api.dataset.metrics',
    summary: 'Health figures of a dataset: freshness, observability, volume, lineage, connectors, quality',
    invalidInputCode: 'DATA_OUT_INVALID_INPUT',
    errorCodes: ['DATASET_NOT_FOUND', 'FAILED_TO_FETCH_METRICS'],
    ...requestOfOperation('api.dataset.metrics', METRICS, { requestRequired: true }),
    variables: (input) => toInput(METRICS, input.body.request),
    result: (data) => (data.dataset!.metrics ?? []).map((category) => withoutNulls({ ...category, components: category.components.map(withoutNulls) })),
  }),

  defineEndpoint<RestDatasetHealthQuery, RestDatasetHealthQueryVariables>({
    method: 'POST',
    path: '/v2/datasets/health',
    apiId: 'api.dataset.health',
    summary: "Probe what a Live dataset depends on (infra, processing, query); dataset_id * for the platform's infra",
    invalidInputCode: 'DATASET_HEALTH_INVALID_INPUT',
    errorCodes: ['DATASET_NOT_FOUND'],
    // The original's console sends api.datasets.health (the original never checked the id).
    bodySchema: envelopeSchema('api.dataset.health', inputSchema(HEALTH), { requestRequired: true, otherIds: ['api.datasets.health'] }),
    operation: HEALTH.type,
    variables: (input) => toInput(HEALTH, input.body.request),
    result: (data) => {
      const health = data.datasetHealth;
      return {
        status: healthStatus(health.status),
        details: health.details.map((detail) => ({
          category: detail.category,
          status: healthStatus(detail.status),
          components: detail.components.map((component) => withoutNulls({ ...component, status: healthStatus(component.status) })),
        })),
      };
    },
  }),
];
