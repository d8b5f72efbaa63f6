// The two transports of dataset metrics; GraphQL's capitals and nulls are put in the contract's spelling.
import { envelope, graphql } from '../../support/api.js';
import type { Category, MetricsDriver } from '../metrics.js';
import { graphqlServiceOutcome, restOutcome } from '../harness.js';

export function restMetricsDriver(): MetricsDriver {
  return {
    metrics: async (target, datasetId, options = {}) =>
      restOutcome<Category[]>(
        await target.http.post('/v2/dataset/metrics').send(
          envelope('api.dataset.metrics', {
            dataset_id: datasetId,
            ...(options.categories ? { category: options.categories } : {}),
            ...(options.period === undefined ? {} : { query_time_period: options.period }),
          }),
        ),
      ),
  };
}

const METRICS = `query Metrics($id: ID!, $categories: [MetricCategory!], $period: Int) {
  dataset(id: $id) { metrics(categories: $categories, period: $period) { category status components { type threshold value status id } } }
}`;

interface GraphQLCategory {
  category: string;
  status: string | null;
  components: Record<string, string | number | null>[];
}

/** GraphQL's spelling (capital enums, nulls) in the contract's, to compare with the shared figures. */
function contractSpelling(categories: GraphQLCategory[]): Category[] {
  const status = (value: string | number | null) => (value === 'HEALTHY' ? 'Healthy' : 'Unhealthy');
  return categories.map((category) => ({
    category: category.category.toLowerCase(),
    ...(category.status === null ? {} : { status: status(category.status) }),
    components: category.components.map(
      (component) =>
        Object.fromEntries(
          Object.entries(component)
            .filter(([, value]) => value !== null)
            .map(([key, value]) => [key, key === 'type' ? String(value).toLowerCase() : key === 'status' ? status(value) : value]),
        ) as Category['components'][number],
    ),
  }));
}

export function graphqlMetricsDriver(): MetricsDriver {
  return {
    metrics: async (target, datasetId, options = {}) => {
      const outcome = graphqlServiceOutcome<{ metrics: GraphQLCategory[] }>(
        await graphql(target, METRICS, { id: datasetId, categories: options.categories?.map((category) => category.toUpperCase()) ?? null, period: options.period ?? null }),
        'dataset',
      );
      return outcome.ok ? { ok: true, value: contractSpelling(outcome.value.metrics) } : outcome;
    },
  };
}
