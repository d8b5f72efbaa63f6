// The gateway's work that no request starts, begun once it serves: the sampler of its own metrics
// into the embedded store (the shared series by the holder of a lease, one gateway per database),
// the processing telemetry's writer, the alert rule evaluator, and the change log's retention. Each
// logs what it does.
import type { Config } from './config.js';
import type { Services } from './context.js';
import type { Logger } from './logger.js';
import { AlertEvaluator } from './modules/alert-rules/index.js';
import { INGESTION_SERIES, type SystemEventsRecorder } from './modules/ingestion/index.js';
import type { Database } from './platform/database/database.js';
import type { PrometheusApi } from './platform/metrics-store/prometheus-read-api.js';
import { MetricsSampler } from './platform/metrics-store/sampler.js';
import { SamplerLease } from './platform/metrics-store/sampler-lease.js';
import type { MetricsStore } from './platform/metrics-store/store.js';
import type { GatewayMetrics } from './telemetry/metrics.js';

export interface BackgroundWorkOptions {
  config: Config;
  database: Database;
  logger: Logger;
  metrics: GatewayMetrics;
  metricsStore: MetricsStore | undefined;
  prometheus: PrometheusApi;
  services: Services;
  systemEvents: SystemEventsRecorder | undefined;
  /** This gateway among its copies (host and port): the label of the series it samples. */
  instance: string;
}

/** How often the change log's retention runs (every copy runs it: a DELETE that finds nothing is cheap). */
const CHANGE_LOG_RETENTION_EVERY_MS = 5 * 60_000;

/** Deletes the change log's rows older than the retention, at once and every few minutes. */
function keepChangeLog(services: Services, retentionMs: number, logger: Logger) {
  let running: Promise<void> | undefined;
  const run = () => {
    running ??= services.live.events
      .deleteChangesBefore(new Date(Date.now() - retentionMs))
      .then((deleted) => {
        for (const [stream, count] of Object.entries(deleted)) if (count > 0) logger.info(`change log: ${count} changes of ${stream} older than ${retentionMs / 3_600_000} h deleted`);
      })
      .catch((error: unknown) => logger.warn({ err: error }, 'change log: retention could not run; it is tried again later'))
      .finally(() => (running = undefined));
  };
  run();
  const timer = setInterval(run, CHANGE_LOG_RETENTION_EVERY_MS);
  timer.unref();
  return {
    async stop(): Promise<void> {
      clearInterval(timer);
      await running;
    },
  };
}

export function startBackgroundWork({ config, database, logger, metrics, metricsStore, prometheus, services, systemEvents, instance }: BackgroundWorkOptions) {
  // The sampler exists whenever the store does (tests sample on demand); it runs on its own when an interval is set.
  // One gateway per database writes the shared series (the ingestion counters), the holder of a lease.
  const samplerLease = metricsStore ? new SamplerLease({ url: database.sessionUrl, instance, logger }) : undefined;
  const sampler =
    metricsStore && samplerLease
      ? new MetricsSampler(metricsStore, () => metrics.snapshot(), {
          intervalMs: config.metrics.sampleIntervalMs,
          retentionMs: config.metrics.retentionMs,
          instance,
          logger,
          shared: { lease: samplerLease, names: INGESTION_SERIES, snapshot: () => services.ingestion.sharedSeries(), written: () => metrics.sharedSamplingWritten() },
        })
      : undefined;
  const sampling = sampler !== undefined && config.metrics.sampleIntervalMs > 0;
  if (sampling) sampler.start();
  // Written out on its own timer once the gateway serves (a start-up that fails leaves no timer behind).
  systemEvents?.start();
  logger.info(
    `dashboard metrics: ${prometheus.name}${sampling ? `, sampled every ${config.metrics.sampleIntervalMs / 1000} s, kept ${config.metrics.retentionMs / 86_400_000} days` : metricsStore ? ' (sampling off: METRICS_SAMPLE_INTERVAL_SECONDS=0)' : ''}`,
  );
  const alertEvaluator = new AlertEvaluator(database.pool, prometheus, services.alerts, {
    tickMs: config.alerting.evaluationTickMs,
    repeatIntervalMs: config.alerting.repeatIntervalMs,
    logger,
    evaluated: () => metrics.alertRuleEvaluated(),
  });
  alertEvaluator.start();
  const changeLogRetention = keepChangeLog(services, config.live.changeLogRetentionMs, logger);
  const jobUpkeep = services.jobs.startUpkeep();
  logger.info(
    config.alerting.evaluationTickMs > 0
      ? `alert rules: Live rules of the embedded and alertmanager managers evaluated here (looking every ${config.alerting.evaluationTickMs / 1000} s) against the ${prometheus.name}; a rule that keeps firing notifies again every ${config.alerting.repeatIntervalMs / 60_000} min`
      : 'alert rules: the embedded evaluator is off on this gateway (ALERT_EVALUATION_TICK_SECONDS=0)',
  );

  return {
    sampler,
    alertEvaluator,
    async stop(): Promise<void> {
      await changeLogRetention.stop();
      await jobUpkeep.stop();
      await alertEvaluator.stop();
      await systemEvents?.stop();
      if (sampling) await sampler.stop();
      await samplerLease?.release();
    },
  };
}
