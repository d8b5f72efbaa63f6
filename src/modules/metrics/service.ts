// Every rule of dataset health metrics lives here: which dataset may be asked about, the period,
// the windows, and how a source's raw figures become the contract's components, thresholds and
// statuses. Both transports call `forDataset`; the source (embedded or Prometheus) only counts.
//
// What the figures mean:
//  - freshness: `average_time_difference_in_min` is the mean time from an event's own time to its
//    arrival, over events that arrived in the period; `freshness_query_time_in_min` is how old the
//    newest event is now. Each is Healthy below its threshold; no events means Unhealthy.
//  - volume: stored events by their own time, in back-to-back windows ending now; a percentage
//    compares a window with the one before it (0 when that one is empty, as the original);
//    `growth_rate_percentage` compares the whole period with the period before it.
//  - lineage: an event that arrived in the period either got through every stage or was refused by
//    one; a stage's success is the events that got past it.
//  - observability and quality: failures are events a stage refused, except duplicates, which the
//    dedup stage drops by design; Unhealthy above the failure threshold.
import type DataLoader from 'dataloader';
import { GatewayError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { isDatabaseUnavailable } from '../../platform/database/errors.js';
import type { MetricsSource } from '../../platform/metrics-source/metrics-source.js';
import type { DatasetService, DatasetVersions, DatasetRecord } from '../datasets/index.js';
import {
  METRIC_CATEGORIES,
  PIPELINE_STAGES,
  type ApiCallFigures,
  type ConnectorFigures,
  type FreshnessFigures,
  type HealthStatus,
  type MetricCategory,
  type MetricCategoryResult,
  type MetricComponent,
  type OutcomeFigures,
  type PipelineStage,
} from './types.js';
import { periodWindow, volumeWindows, type VolumeWindows } from './windows.js';

export interface MetricsServiceOptions {
  /** Days looked back when a request names no period (the original's 7). */
  defaultPeriodDays: number;
  maxPeriodDays: number;
  /** Minutes; `average_time_difference_in_min` is Healthy below it (the original's 5). */
  freshnessThresholdMin: number;
  /** Minutes; `freshness_query_time_in_min` is Healthy below it (the original's 10). */
  queryTimeThresholdMin: number;
  /** Percent; observability is Unhealthy above it (the original's 5). */
  failureThresholdPercent: number;
  logger: Logger;
  /** The clock, replaceable in tests. */
  now?: () => Date;
}

export interface MetricsRequest {
  categories?: readonly MetricCategory[] | null;
  /** Days (query_time_period). */
  period?: number | null;
}

const MINUTE_MS = 60_000;

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

function status(healthy: boolean): HealthStatus {
  return healthy ? 'Healthy' : 'Unhealthy';
}

/** Percentage change from `previous` to `current`; 0 without a baseline, as the original. */
function change(current: number, previous: number): number {
  return previous > 0 ? round(((current - previous) / previous) * 100) : 0;
}

function sum(values: Iterable<number | undefined>): number {
  let total = 0;
  for (const value of values) total += value ?? 0;
  return total;
}

/** Failures that count against a dataset's health: every refusal but a dropped duplicate. */
function harmfulFailures(outcomes: OutcomeFigures): number {
  return sum(Object.entries(outcomes.failedByStage).map(([stage, n]) => (stage === 'dedup' ? 0 : n)));
}

function totalEvents(outcomes: OutcomeFigures): number {
  return outcomes.stored + sum(Object.values(outcomes.failedByStage));
}

/** Events that got past `stage`: all of them minus those refused there or earlier. */
function passed(outcomes: OutcomeFigures, stage: PipelineStage): number {
  const upTo = PIPELINE_STAGES.slice(0, PIPELINE_STAGES.indexOf(stage) + 1) as readonly string[];
  return totalEvents(outcomes) - sum(upTo.map((name) => outcomes.failedByStage[name]));
}

/** Connector instance ids in a dataset's connectors_config. */
function configuredConnectors(dataset: DatasetRecord): string[] {
  return dataset.connectorsConfig.flatMap((item) => {
    const id = (item as { id?: unknown } | null)?.id;
    return typeof id === 'string' && id ? [id] : [];
  });
}

export function createMetricsService(datasets: DatasetService, source: MetricsSource, options: MetricsServiceOptions) {
  const clock = options.now ?? (() => new Date());

  const builders = {
    freshness(figures: FreshnessFigures, now: Date): MetricCategoryResult {
      const lagMin = figures.averageLagMs === null ? null : Math.max(0, figures.averageLagMs) / MINUTE_MS;
      const ageMin = figures.newestEventTime === null ? null : Math.max(0, now.getTime() - figures.newestEventTime.getTime()) / MINUTE_MS;
      const lagHealthy = lagMin !== null && lagMin < options.freshnessThresholdMin;
      const ageHealthy = ageMin !== null && ageMin < options.queryTimeThresholdMin;
      return {
        category: 'data_freshness',
        status: status(lagHealthy && ageHealthy),
        components: [
          { type: 'average_time_difference_in_min', threshold: options.freshnessThresholdMin, ...(lagMin === null ? {} : { value: round(lagMin) }), status: status(lagHealthy) },
          { type: 'freshness_query_time_in_min', threshold: options.queryTimeThresholdMin, ...(ageMin === null ? {} : { value: round(ageMin) }), status: status(ageHealthy) },
        ],
      };
    },

    observability(outcomes: OutcomeFigures, calls: ApiCallFigures): MetricCategoryResult {
      const total = totalEvents(outcomes);
      const failure = total > 0 ? round((harmfulFailures(outcomes) / total) * 100) : 0;
      const health = status(failure <= options.failureThresholdPercent);
      return {
        category: 'data_observability',
        status: health,
        components: [
          { type: 'data_observability_health', status: health },
          { type: 'failure_percentage', value: failure },
          { type: 'threshold_percentage', value: options.failureThresholdPercent },
          { type: 'importance_score', value: calls.all > 0 ? round((calls.dataset / calls.all) * 100) : 0 },
        ],
      };
    },

    volume(counts: Record<keyof VolumeWindows, number>): MetricCategoryResult {
      return {
        category: 'data_volume',
        components: [
          { type: 'events_per_hour', value: counts.hour },
          { type: 'events_per_day', value: counts.day },
          { type: 'events_per_n_day', value: counts.period },
          { type: 'volume_percentage_by_hour', value: change(counts.hour, counts.previousHour) },
          { type: 'volume_percentage_by_day', value: change(counts.day, counts.previousDay) },
          { type: 'volume_percentage_by_week', value: change(counts.week, counts.previousWeek) },
          { type: 'growth_rate_percentage', value: change(counts.period, counts.previousPeriod) },
        ],
      };
    },

    lineage(outcomes: OutcomeFigures): MetricCategoryResult {
      const failed = outcomes.failedByStage;
      return {
        category: 'data_lineage',
        components: [
          { type: 'transformation_success', value: passed(outcomes, 'transformation') },
          { type: 'dedup_success', value: passed(outcomes, 'dedup') },
          { type: 'denormalization_success', value: passed(outcomes, 'denorm') },
          { type: 'total_success', value: outcomes.stored },
          { type: 'total_failed', value: sum(Object.values(failed)) },
          { type: 'transformation_failed', value: failed.transformation ?? 0 },
          { type: 'dedup_failed', value: failed.dedup ?? 0 },
          { type: 'denorm_failed', value: failed.denorm ?? 0 },
        ],
      };
    },

    connectors(reported: readonly ConnectorFigures[], dataset: DatasetRecord): MetricCategoryResult {
      // Configured instances the source saw nothing from are listed too, with zeros.
      const seen = new Set(reported.map((connector) => connector.id));
      const all = [
        ...reported,
        ...configuredConnectors(dataset)
          .filter((id) => !seen.has(id))
          .map((id) => ({ id, stored: 0, failed: 0 })),
      ];
      return {
        category: 'connectors',
        components: all.flatMap((connector): MetricComponent[] => [
          { type: 'success', id: connector.id, value: connector.stored },
          { type: 'failed', id: connector.id, value: connector.failed },
        ]),
      };
    },

    quality(outcomes: OutcomeFigures): MetricCategoryResult {
      const total = totalEvents(outcomes);
      const failed = harmfulFailures(outcomes);
      return {
        category: 'data_quality',
        components: [
          { type: 'incidents_failed', value: failed },
          { type: 'incidents_success', value: total - failed },
          { type: 'total_incidents', value: total },
        ],
      };
    },
  };

  /** Source failures become the contract's FAILED_TO_FETCH_METRICS; ours and a lost database pass as they are. */
  function fromSource<T>(work: Promise<T>): Promise<T> {
    return work.catch((error: unknown) => {
      if (error instanceof GatewayError || isDatabaseUnavailable(error)) throw error;
      options.logger.error({ err: error, source: source.name }, 'metrics source failed');
      throw new GatewayError('FAILED_TO_FETCH_METRICS', `Error while fetching metrics: ${source.name} failed`);
    });
  }

  return {
    sourceName: source.name,

    /**
     * The observability category of several Live datasets at once (a list page's health), over the
     * default period: one source call for all of them where the source can batch.
     */
    async observabilityOf(datasetIds: readonly string[]): Promise<Map<string, MetricCategoryResult>> {
      const window = periodWindow(clock(), options.defaultPeriodDays);
      // Asked together: the counters' read then shares its statement with the page's Dataset.ingestion.
      const [outcomes, callsOf] = await Promise.all([
        source.outcomesOf
          ? fromSource(source.outcomesOf(datasetIds, window))
          : Promise.all(datasetIds.map(async (datasetId) => [datasetId, await fromSource(source.outcomes(datasetId, window))] as const)).then((entries) => new Map(entries)),
        source.apiCallsOf ? fromSource(source.apiCallsOf(datasetIds, window)) : undefined,
      ]);
      const results = new Map<string, MetricCategoryResult>();
      for (const datasetId of datasetIds) {
        const calls = callsOf?.get(datasetId) ?? (await fromSource(source.apiCalls(datasetId, window)));
        results.set(datasetId, builders.observability(outcomes.get(datasetId) ?? { stored: 0, failedByStage: {} }, calls));
      }
      return results;
    },

    /** Health figures of a dataset's published version, one entry per category asked for, in the contract's order. */
    async forDataset(datasetId: string, request: MetricsRequest, loader?: DataLoader<string, DatasetVersions>): Promise<MetricCategoryResult[]> {
      const invalid = (message: string) => new GatewayError('DATA_OUT_INVALID_INPUT', message);
      const period = request.period ?? options.defaultPeriodDays;
      if (!Number.isSafeInteger(period) || period < 1 || period > options.maxPeriodDays) {
        throw invalid(`query_time_period must be a whole number of days from 1 to ${options.maxPeriodDays} (METRICS_MAX_PERIOD_DAYS; got ${period})`);
      }
      if (request.categories && request.categories.length === 0) throw invalid('category must name at least one category; leave it out for all of them');
      const unknown = request.categories?.filter((category) => !(METRIC_CATEGORIES as readonly string[]).includes(category));
      if (unknown && unknown.length > 0) throw invalid(`unknown category ${JSON.stringify(unknown[0])} (known: ${METRIC_CATEGORIES.join(', ')})`);
      const wanted = new Set<MetricCategory>(request.categories ?? METRIC_CATEGORIES);

      const dataset = await datasets.get(datasetId, { stage: 'live' }, loader).catch((error: unknown) => {
        if (error instanceof GatewayError && error.code === 'DATASET_NOT_FOUND') {
          throw new GatewayError('DATASET_NOT_FOUND', `Dataset with id ${datasetId} not found in live table`);
        }
        throw error;
      });

      const now = clock();
      const window = periodWindow(now, period);
      let outcomes: Promise<OutcomeFigures> | undefined;
      // Observability, lineage and quality read the same figures: one source call serves them all.
      const sharedOutcomes = () => (outcomes ??= fromSource(source.outcomes(dataset.datasetId, window)));

      // Categories are independent: their source calls run together, not one after another.
      const build: Record<MetricCategory, () => Promise<MetricCategoryResult>> = {
        data_freshness: async () => builders.freshness(await fromSource(source.freshness(dataset.datasetId, window)), now),
        data_observability: async () => {
          const [figures, calls] = await Promise.all([sharedOutcomes(), fromSource(source.apiCalls(dataset.datasetId, window))]);
          return builders.observability(figures, calls);
        },
        data_volume: async () => {
          const windows = volumeWindows(now, period);
          const names = Object.keys(windows) as (keyof VolumeWindows)[];
          const counts = await fromSource(
            source.volume(
              dataset.datasetId,
              names.map((name) => windows[name]),
            ),
          );
          return builders.volume(Object.fromEntries(names.map((name, index) => [name, counts[index] ?? 0])) as Record<keyof VolumeWindows, number>);
        },
        data_lineage: async () => builders.lineage(await sharedOutcomes()),
        connectors: async () => builders.connectors(await fromSource(source.connectors(dataset.datasetId, window)), dataset),
        data_quality: async () => builders.quality(await sharedOutcomes()),
      };
      return Promise.all(METRIC_CATEGORIES.filter((category) => wanted.has(category)).map((category) => build[category]()));
    },
  };
}

export type MetricsService = ReturnType<typeof createMetricsService>;
