// GraphQL resolvers for dataset health metrics: arguments in, service call, result out.
import type { Resolvers } from '../../generated/graphql.js';

export const metricsResolvers: Resolvers = {
  Query: {
    datasetHealth: (_, { datasetId, categories }, { services }) => services.health.check(datasetId, categories),
  },
  HealthCategory: { INFRA: 'infra', PROCESSING: 'processing', QUERY: 'query' },
  Dataset: {
    metrics: (dataset, { categories, period }, { services, loaders }) =>
      services.metrics.forDataset(dataset.datasetId, { categories, period }, loaders.datasetVersions),
  },
  MetricCategory: {
    DATA_FRESHNESS: 'data_freshness',
    DATA_OBSERVABILITY: 'data_observability',
    DATA_VOLUME: 'data_volume',
    DATA_LINEAGE: 'data_lineage',
    CONNECTORS: 'connectors',
    DATA_QUALITY: 'data_quality',
  },
  HealthStatus: { HEALTHY: 'Healthy', UNHEALTHY: 'Unhealthy' },
  MetricComponentType: {
    AVERAGE_TIME_DIFFERENCE_IN_MIN: 'average_time_difference_in_min',
    FRESHNESS_QUERY_TIME_IN_MIN: 'freshness_query_time_in_min',
    DATA_OBSERVABILITY_HEALTH: 'data_observability_health',
    FAILURE_PERCENTAGE: 'failure_percentage',
    THRESHOLD_PERCENTAGE: 'threshold_percentage',
    IMPORTANCE_SCORE: 'importance_score',
    EVENTS_PER_HOUR: 'events_per_hour',
    EVENTS_PER_DAY: 'events_per_day',
    EVENTS_PER_N_DAY: 'events_per_n_day',
    VOLUME_PERCENTAGE_BY_HOUR: 'volume_percentage_by_hour',
    VOLUME_PERCENTAGE_BY_DAY: 'volume_percentage_by_day',
    VOLUME_PERCENTAGE_BY_WEEK: 'volume_percentage_by_week',
    GROWTH_RATE_PERCENTAGE: 'growth_rate_percentage',
    TRANSFORMATION_SUCCESS: 'transformation_success',
    DEDUP_SUCCESS: 'dedup_success',
    DENORMALIZATION_SUCCESS: 'denormalization_success',
    TOTAL_SUCCESS: 'total_success',
    TOTAL_FAILED: 'total_failed',
    TRANSFORMATION_FAILED: 'transformation_failed',
    DEDUP_FAILED: 'dedup_failed',
    DENORM_FAILED: 'denorm_failed',
    SUCCESS: 'success',
    FAILED: 'failed',
    INCIDENTS_FAILED: 'incidents_failed',
    INCIDENTS_SUCCESS: 'incidents_success',
    TOTAL_INCIDENTS: 'total_incidents',
  },
};
