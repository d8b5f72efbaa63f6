// Domain types of dataset health metrics (contract 2.7, 4.1).

export const METRIC_CATEGORIES = ['data_freshness', 'data_observability', 'data_volume', 'data_lineage', 'connectors', 'data_quality'] as const;
export type MetricCategory = (typeof METRIC_CATEGORIES)[number];

/** The component types the contract lists, per category. */
export const COMPONENT_TYPES = {
  data_freshness: ['average_time_difference_in_min', 'freshness_query_time_in_min'],
  data_observability: ['data_observability_health', 'failure_percentage', 'threshold_percentage', 'importance_score'],
  data_volume: ['events_per_hour', 'events_per_day', 'events_per_n_day', 'volume_percentage_by_hour', 'volume_percentage_by_day', 'volume_percentage_by_week', 'growth_rate_percentage'],
  data_lineage: ['transformation_success', 'dedup_success', 'denormalization_success', 'total_success', 'total_failed', 'transformation_failed', 'dedup_failed', 'denorm_failed'],
  connectors: ['success', 'failed'],
  data_quality: ['incidents_failed', 'incidents_success', 'total_incidents'],
} as const satisfies Record<MetricCategory, readonly string[]>;
export type ComponentType = (typeof COMPONENT_TYPES)[MetricCategory][number];

export type HealthStatus = 'Healthy' | 'Unhealthy';

export interface MetricComponent {
  type: ComponentType;
  threshold?: number;
  value?: number;
  status?: HealthStatus;
  /** The connector instance, for `connectors` components. */
  id?: string;
}

export interface MetricCategoryResult {
  category: MetricCategory;
  status?: HealthStatus;
  components: MetricComponent[];
}

// ---------------------------------------------------------------------------------------------
// What a metrics source reports: raw figures (src/platform/metrics-source). The service turns them
// into components.
export type { ApiCallFigures, ConnectorFigures, FreshnessFigures, OutcomeFigures, Window } from '../../platform/metrics-source/metrics-source.js';

/** The processing stages of the pipeline, in the order an event passes them. */
export const PIPELINE_STAGES = ['extraction', 'validation', 'dedup', 'denorm', 'transformation', 'master'] as const;
export type PipelineStage = (typeof PIPELINE_STAGES)[number];

/** GraphQL's MetricCategory values and what this domain calls each (resolvers, codegen and REST all read this). */
export const METRIC_CATEGORY_VALUES = {
  DATA_FRESHNESS: 'data_freshness',
  DATA_OBSERVABILITY: 'data_observability',
  DATA_VOLUME: 'data_volume',
  DATA_LINEAGE: 'data_lineage',
  CONNECTORS: 'connectors',
  DATA_QUALITY: 'data_quality',
} as const;

/** GraphQL's HealthStatus values and what this domain calls each (resolvers, codegen and REST all read this). */
export const HEALTH_STATUS_VALUES = { HEALTHY: 'Healthy', UNHEALTHY: 'Unhealthy' } as const;

/** GraphQL's HealthCategory values and what this domain calls each (resolvers, codegen and REST all read this). */
export const HEALTH_CATEGORY_VALUES = { INFRA: 'infra', PROCESSING: 'processing', QUERY: 'query' } as const;

/** GraphQL's MetricComponentType values and what this domain calls each (resolvers, codegen and REST all read this). */
export const METRIC_COMPONENT_TYPE_VALUES = {
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
} as const;
