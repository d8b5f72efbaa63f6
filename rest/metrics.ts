// REST entry for dataset health metrics (contract 4.1; note the singular `dataset` in the path).
// GraphQL spells enum values in capitals; the contract in snake case (statuses as Healthy/Unhealthy),
// and a component carries only the fields it has.
import { METRIC_CATEGORIES } from '../src/modules/metrics/types.js';
import { defineEndpoint } from './table.js';
import { envelopeSchema } from './validation.js';

interface ComponentData {
  type: string;
  threshold: number | null;
  value: number | null;
  status: string | null;
  id: string | null;
}

interface CategoryData {
  category: string;
  status: string | null;
  components: ComponentData[];
}

const STATUS: Record<string, string> = { HEALTHY: 'Healthy', UNHEALTHY: 'Unhealthy' };

function restComponent(component: ComponentData): Record<string, unknown> {
  return {
    type: component.type.toLowerCase(),
    ...(component.threshold === null ? {} : { threshold: component.threshold }),
    ...(component.value === null ? {} : { value: component.value }),
    ...(component.status === null ? {} : { status: STATUS[component.status] }),
    ...(component.id === null ? {} : { id: component.id }),
  };
}

export const metricsEndpoints = [
  defineEndpoint({
    method: 'POST',
    path: '/v2/dataset/metrics',
    apiId: 'api.dataset.metrics',
    summary: 'Health figures of a dataset: freshness, observability, volume, lineage, connectors, quality',
    invalidInputCode: 'DATA_OUT_INVALID_INPUT',
    bodySchema: envelopeSchema(
      'api.dataset.metrics',
      {
        type: 'object',
        properties: {
          dataset_id: { type: 'string', minLength: 1, maxLength: 200 },
          // Optional (the contract's choice over the original's): without it, every category.
          category: { type: 'array', minItems: 1, maxItems: 12, items: { type: 'string', enum: [...METRIC_CATEGORIES] } },
          query_time_period: { type: 'integer', minimum: 1 },
        },
        required: ['dataset_id'],
        additionalProperties: false,
      },
      { requestRequired: true },
    ),
    operation: `query RestDatasetMetrics($id: ID!, $categories: [MetricCategory!], $period: Int) {
      dataset(id: $id) { metrics(categories: $categories, period: $period) { category status components { type threshold value status id } } }
    }`,
    variables: (input) => {
      const request = input.body.request as { dataset_id: string; category?: string[]; query_time_period?: number };
      return {
        id: request.dataset_id,
        categories: request.category?.map((category) => category.toUpperCase()) ?? null,
        period: request.query_time_period ?? null,
      };
    },
    result: (data) =>
      ((data.dataset as { metrics: CategoryData[] }).metrics ?? []).map((category) => ({
        category: category.category.toLowerCase(),
        ...(category.status === null ? {} : { status: STATUS[category.status] }),
        components: category.components.map(restComponent),
      })),
  }),
];
