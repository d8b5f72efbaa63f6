// Metrics: Prometheus, or the embedded metrics store when unset, and the dataset metrics' periods and health thresholds.
import { z } from 'zod';

export const metricsVariables = z.object({
  PROMETHEUS_URL: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe('Prometheus the dataset metrics read pipeline figures from. When unset, they come from the embedded event store.'),
  PROMETHEUS_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(10_000).describe('Longest one Prometheus query may take.'),
  METRICS_SAMPLE_INTERVAL_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(3600)
    .default(15)
    .describe(
      "How often the gateway samples its own metrics into the embedded metrics store (what POST /v2/data/metrics and the console's dashboards read when PROMETHEUS_URL is unset). 0 turns sampling off. Ignored when PROMETHEUS_URL is set (Prometheus scrapes GET /metrics).",
    ),
  METRICS_RETENTION_DAYS: z.coerce.number().int().min(1).max(365).default(7).describe('Days the embedded metrics store keeps samples.'),
  METRICS_CHUNK_CACHE_MB: z.coerce
    .number()
    .int()
    .min(0)
    .max(65_536)
    .default(64)
    .describe(
      "MiB of decoded hourly chunks of the embedded metrics store each gateway keeps in memory, so a dashboard's repeated range queries are not read from PostgreSQL again (each query still lists the chunks from the database: a chunk compacted or dropped since is seen). 0 keeps none.",
    ),
  METRICS_DEFAULT_PERIOD_DAYS: z.coerce.number().int().min(1).max(3650).default(7).describe('Days dataset metrics look back when a request names no query_time_period.'),
  METRICS_MAX_PERIOD_DAYS: z.coerce.number().int().min(1).max(3650).default(90).describe('Largest query_time_period (days) a metrics request may ask for.'),
  METRICS_FRESHNESS_THRESHOLD_MIN: z.coerce.number().positive().default(5).describe('Minutes of event-to-arrival lag under which freshness is Healthy.'),
  METRICS_QUERY_TIME_THRESHOLD_MIN: z.coerce.number().positive().default(10).describe('Age in minutes of the newest event under which freshness is Healthy.'),
  METRICS_FAILURE_THRESHOLD_PERCENT: z.coerce.number().min(0).max(100).default(5).describe('Percentage of refused events above which observability is Unhealthy.'),
});

export type MetricsVariables = z.infer<typeof metricsVariables>;

export function metricsSettings(e: MetricsVariables) {
  return {
    defaultPeriodDays: e.METRICS_DEFAULT_PERIOD_DAYS,
    maxPeriodDays: e.METRICS_MAX_PERIOD_DAYS,
    freshnessThresholdMin: e.METRICS_FRESHNESS_THRESHOLD_MIN,
    queryTimeThresholdMin: e.METRICS_QUERY_TIME_THRESHOLD_MIN,
    failureThresholdPercent: e.METRICS_FAILURE_THRESHOLD_PERCENT,
    /** How often the embedded metrics store samples this gateway's metrics (0: never). */
    sampleIntervalMs: e.METRICS_SAMPLE_INTERVAL_SECONDS * 1000,
    retentionMs: e.METRICS_RETENTION_DAYS * 86_400_000,
    /** Bytes of decoded chunks the embedded metrics store keeps between queries (0: none). */
    chunkCacheBytes: e.METRICS_CHUNK_CACHE_MB * 2 ** 20,
    ...(e.PROMETHEUS_URL ? { prometheus: { url: e.PROMETHEUS_URL, timeoutMs: e.PROMETHEUS_TIMEOUT_MS } } : {}),
  };
}
