// REST entry for dataset health metrics (contract 4.1; note the singular `dataset` in the path).
// GraphQL spells enum values in capitals; the contract in snake case (statuses as Healthy/Unhealthy),
// and a component carries only the fields it has.
import type { RestDatasetHealthQuery, RestDatasetHealthQueryVariables, RestDatasetMetricsQuery, RestDatasetMetricsQueryVariables } from '../src/generated/rest-operations.js';
import { domainValue, domainValues, enumName, ENUMS } from './enum-names.js';
import { defineEndpoint } from './table.js';
import { envelopeSchema } from './validation.js';

interface ComponentData {
  type: string;
  threshold: number | null;
  value: number | null;
  status: string | null;
  id: string | null;
}

/** The original's health endpoint spells it "UnHealthy" (reference §7); its clients compare with that. */
const HEALTH_STATUS: Record<string, string> = { HEALTHY: 'Healthy', UNHEALTHY: 'UnHealthy' };

function restComponent(component: ComponentData): Record<string, unknown> {
  return {
    type: component.type.toLowerCase(),
    ...(component.threshold === null ? {} : { threshold: component.threshold }),
    ...(component.value === null ? {} : { value: component.value }),
    ...(component.status === null ? {} : { status: domainValue(ENUMS.HealthStatus, component.status) }),
    ...(component.id === null ? {} : { id: component.id }),
  };
}

export const metricsEndpoints = [
  defineEndpoint<RestDatasetMetricsQuery, RestDatasetMetricsQueryVariables>({
    method: 'POST',
    path: '/v2/dataset/metrics',
    apiId: 'api.dataset.metrics',
    summary: 'Health figures of a dataset: freshness, observability, volume, lineage, connectors, quality',
    invalidInputCode: 'DATA_OUT_INVALID_INPUT',
    errorCodes: ['DATASET_NOT_FOUND', 'FAILED_TO_FETCH_METRICS'],
    bodySchema: envelopeSchema(
      'api.dataset.metrics',
      {
        type: 'object',
        properties: {
          dataset_id: { type: 'string', minLength: 1, maxLength: 200 },
          // Optional (the contract's choice over the original's): without it, every category.
          category: { type: 'array', minItems: 1, maxItems: 12, items: { type: 'string', enum: domainValues(ENUMS.MetricCategory) } },
          query_time_period: { type: 'integer', minimum: 1 },
        },
        required: ['dataset_id'],
        additionalProperties: false,
      },
      { requestRequired: true },
    ),
    operation: /* GraphQL */ `
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
    variables: (input) => {
      const request = input.body.request as { dataset_id: string; category?: string[]; query_time_period?: number };
      return {
        id: request.dataset_id,
        categories: request.category?.map((category) => enumName(ENUMS.MetricCategory, category)) ?? null,
        period: request.query_time_period ?? null,
      };
    },
    result: (data) =>
      (data.dataset!.metrics ?? []).map((category) => ({
        category: category.category.toLowerCase(),
        ...(category.status === null ? {} : { status: domainValue(ENUMS.HealthStatus, category.status) }),
        components: category.components.map(restComponent),
      })),
  }),

  defineEndpoint<RestDatasetHealthQuery, RestDatasetHealthQueryVariables>({
    method: 'POST',
    path: '/v2/datasets/health',
    apiId: 'api.dataset.health',
    summary: "Probe what a Live dataset depends on (infra, processing, query); dataset_id * for the platform's infra",
    invalidInputCode: 'DATASET_HEALTH_INVALID_INPUT',
    errorCodes: ['DATASET_NOT_FOUND'],
    bodySchema: envelopeSchema(
      'api.dataset.health',
      {
        type: 'object',
        properties: {
          dataset_id: { type: 'string', minLength: 1, maxLength: 200 },
          categories: { type: 'array', minItems: 1, maxItems: 3, items: { type: 'string', enum: domainValues(ENUMS.HealthCategory) } },
        },
        required: ['dataset_id', 'categories'],
        additionalProperties: false,
      },
      // The original's console sends api.datasets.health (the original never checked the id).
      { requestRequired: true, otherIds: ['api.datasets.health'] },
    ),
    operation: /* GraphQL */ `
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
    variables: (input) => {
      const request = input.body.request as { dataset_id: string; categories: string[] };
      return { id: request.dataset_id, categories: request.categories.map((category) => enumName(ENUMS.HealthCategory, category)) };
    },
    result: (data) => {
      const health = data.datasetHealth;
      return {
        status: HEALTH_STATUS[health.status],
        details: health.details.map((detail) => ({
          category: detail.category.toLowerCase(),
          status: HEALTH_STATUS[detail.status],
          components: detail.components.map((component) => ({
            type: component.type,
            status: HEALTH_STATUS[component.status],
            ...(component.message === null ? {} : { message: component.message }),
          })),
        })),
      };
    },
  }),
];
