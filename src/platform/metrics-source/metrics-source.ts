// Where a dataset's health figures come from: the embedded event store and this gateway's own
// counters by default, or Prometheus over HTTP (PROMETHEUS_URL) when the pipeline runs at scale.
// Sources report raw figures only; the metrics service turns them into the contract's components.
import type pg from 'pg';
import type { Config } from '../../config.js';
import type { IngestionCounters } from '../../modules/ingestion/counters.js';
import type { ApiCallFigures, ConnectorFigures, FreshnessFigures, OutcomeFigures, Window } from '../../modules/metrics/types.js';
import { EmbeddedMetricsSource } from './embedded.js';
import { PrometheusMetricsSource } from './prometheus.js';

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
}

export function createMetricsSource(settings: Config['metrics'], pool: pg.Pool, counters: IngestionCounters): MetricsSource {
  return settings.prometheus ? new PrometheusMetricsSource(settings.prometheus) : new EmbeddedMetricsSource(pool, counters);
}
