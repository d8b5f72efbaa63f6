// Per-dataset ingestion counters (requests, received, processed, duplicates, failed, refused calls),
// read by the ingestion stats and the metrics' importance score. They are kept in the shared store
// (store.ts), so every gateway on the database answers the same numbers; this process's own
// Prometheus counters are told of each count as it happens.
import type { Logger } from '../../logger.js';
import type { SharedSample } from '../../platform/metrics-store/sampler.js';
import type { IngestionObserver } from '../../telemetry/metrics.js';
import type { PublishOutcome, PublishTally } from '../../platform/event-bus/event-bus.js';
import { acceptedDelta, type IngestionCounterStore, type IngestionCounts } from './store.js';

export type { IngestionCounts } from './store.js';

/** Metric names of the counters (as src/telemetry/metrics.ts names this process's own): the database-wide ones replace them in the metrics store. */
export const INGESTION_SERIES: ReadonlySet<string> = new Set(['gateway_ingestion_events_total', 'gateway_ingestion_requests_total']);
/** Datasets the shared series carry at most, the busiest first (a label per dataset, as the process's series bound theirs). */
const MAX_SERIES_DATASETS = 500;
/** How long tallied calls wait to be folded into one row per dataset (reads see them meanwhile: this only bounds the deltas table). */
const FOLD_AFTER_MS = 1_000;

export class IngestionCounters {
  private foldTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: IngestionCounterStore,
    private readonly logger: Pick<Logger, 'warn'>,
    private readonly observer?: IngestionObserver,
  ) {}

  /** Handed to the event bus with each call: the embedded store writes the call's count with its events. */
  get tally(): PublishTally {
    return this.store.tally;
  }

  /**
   * Counted after the events are durable (or with them, when the bus wrote the tally): a counter
   * that cannot be written is logged, never turned into a failed answer (the caller would send the
   * acknowledged events again).
   */
  async recordAccepted(datasetId: string, outcome: PublishOutcome): Promise<void> {
    this.observer?.accepted(datasetId, outcome);
    if (outcome.tallied) {
      this.foldSoon();
      return;
    }
    await this.store.add(datasetId, acceptedDelta(outcome)).catch((error: unknown) => this.logger.warn({ err: error, datasetId }, 'ingestion counters: an accepted call could not be counted'));
  }

  /** One fold a second at most while calls are tallied (any gateway's fold moves every gateway's deltas). */
  private foldSoon(): void {
    this.foldTimer ??= setTimeout(() => {
      this.store
        .fold()
        .catch((error: unknown) => this.logger.warn({ err: error }, 'ingestion counters: tallied calls could not be folded (they are still counted, from the deltas)'))
        .finally(() => (this.foldTimer = undefined));
    }, FOLD_AFTER_MS).unref();
  }

  async recordRejected(datasetId: string): Promise<void> {
    this.observer?.rejected(datasetId);
    await this.store.add(datasetId, { rejectedRequests: 1 }).catch((error: unknown) => this.logger.warn({ err: error, datasetId }, 'ingestion counters: a refused call could not be counted'));
  }

  /** Reading never adds a row: asking about an id costs no storage. */
  async snapshot(datasetId: string): Promise<IngestionCounts> {
    return (await this.store.countsOf([datasetId]))[0]!;
  }

  /** The counts of many datasets in one statement (a list page's `ingestion` fields). */
  snapshots(datasetIds: readonly string[]): Promise<IngestionCounts[]> {
    return this.store.countsOf(datasetIds);
  }

  /** Accepted ingest calls of one dataset and over every dataset (the metrics' importance score). */
  requestTotals(datasetId: string): Promise<{ dataset: number; all: number }> {
    return this.store.requestTotals(datasetId);
  }

  /** The counters of every gateway as metric series: what the metrics sampler's lease holder writes for the database. */
  async sharedSeries(): Promise<SharedSample[]> {
    const series: SharedSample[] = [];
    const counter = (name: string, labels: Record<string, string>, value: number) => series.push({ name, labels, value, cumulative: true });
    for (const counts of await this.store.busiest(MAX_SERIES_DATASETS)) {
      const dataset = counts.datasetId;
      counter('gateway_ingestion_requests_total', { dataset, outcome: 'accepted' }, counts.requests);
      counter('gateway_ingestion_requests_total', { dataset, outcome: 'rejected' }, counts.rejectedRequests);
      counter('gateway_ingestion_events_total', { dataset, stage: 'received' }, counts.received);
      counter('gateway_ingestion_events_total', { dataset, stage: 'processed' }, counts.processed);
      counter('gateway_ingestion_events_total', { dataset, stage: 'duplicate' }, counts.duplicates);
      counter('gateway_ingestion_events_total', { dataset, stage: 'failed' }, counts.failed);
    }
    return series;
  }

  requestTotalsOf(datasetIds: readonly string[]): Promise<{ dataset: number; all: number }[]> {
    return this.store.requestTotalsOf(datasetIds);
  }
}
