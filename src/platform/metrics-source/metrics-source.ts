// Where a dataset's health figures come from: the embedded event store and this gateway's own
// counters by default, or Prometheus over HTTP (PROMETHEUS_URL) when the pipeline runs at scale.
// Sources report raw figures only; the metrics service turns them into the contract's components.
import type pg from 'pg';
import type { Config } from '../../config.js';
import { EmbeddedMetricsSource } from './embedded.js';
import { PrometheusMetricsSource } from './prometheus.js';

/** A time range, from inclusive, to exclusive. */
export interface Window {
  from: Date;
  to: Date;
}

export interface FreshnessFigures {
  /** Event time (from the dataset's timestamp key) of the newest stored event; null when none. */
  newestEventTime: Date | null;
  /** Mean time from an event's own time to its arrival, over events that arrived in the window; null when none did. */
  averageLagMs: number | null;
}

export interface OutcomeFigures {
  /** Events that went through every stage and were stored, by arrival in the window. */
  stored: number;
  /** Events a stage refused, by stage (stages not listed refused none). */
  failedByStage: Partial<Record<string, number>>;
}

export interface ConnectorFigures {
  /** The connector instance that brought the events in (`api` for the ingestion endpoint). */
  id: string;
  stored: number;
  failed: number;
}

export interface ApiCallFigures {
  /** Calls about this dataset, and about every dataset, that the source knows of. */
  dataset: number;
  all: number;
}

/** The ingestion counts every gateway on the database shares (the ingestion module's IngestionCounters). */
export interface IngestionCallCounts {
  /** Accepted ingest calls of one dataset, and over every dataset. */
  requestTotals(datasetId: string): Promise<{ dataset: number; all: number }>;
  /** The same for several datasets, in the order given, in one statement. */
  requestTotalsOf(datasetIds: readonly string[]): Promise<{ dataset: number; all: number }[]>;
}

export interface MetricsSource {
  /** A short description for logs and failure messages. */
  readonly name: string;
  /** The newest event's time, and the mean lag of events that arrived in `window`. */
  freshness(datasetId: string, window: Window): Promise<FreshnessFigures>;
  /** Stored events in each window, in the order given. */
  volume(datasetId: string, windows: readonly Window[]): Promise<number[]>;
  /** What the processing stages made of the events that arrived in `window`. */
  outcomes(datasetId: string, window: Window): Promise<OutcomeFigures>;
  /** The same for several datasets in one call (a list page's health); absent: one `outcomes` call each. */
  outcomesOf?(datasetIds: readonly string[], window: Window): Promise<Map<string, OutcomeFigures>>;
  /** The same, per connector instance the events came in through. */
  connectors(datasetId: string, window: Window): Promise<ConnectorFigures[]>;
  /** API calls about the dataset, against calls about all datasets (the importance score). */
  apiCalls(datasetId: string, window: Window): Promise<ApiCallFigures>;
  /** The same for several datasets in one call (a list page's health); absent: one `apiCalls` call each. */
  apiCallsOf?(datasetIds: readonly string[], window: Window): Promise<Map<string, ApiCallFigures>>;
}

export function createMetricsSource(settings: Config['metrics'], pool: pg.Pool, counters: IngestionCallCounts): MetricsSource {
  return settings.prometheus ? new PrometheusMetricsSource(settings.prometheus) : new EmbeddedMetricsSource(pool, counters);
}
