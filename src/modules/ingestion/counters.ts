// Per-dataset ingestion counters kept by the gateway (received, processed, duplicates, failed),
// read by the ingestion stats and the metrics' importance score; in memory, since they describe this
// process's own traffic.
import type { IngestionObserver } from '../../telemetry/metrics.js';

export interface IngestionCounts {
  requests: number;
  received: number;
  processed: number;
  duplicates: number;
  failed: number;
  rejectedRequests: number;
}

/** Datasets tracked at most: callers can name any id (refused ones are counted too), so the map is bounded. */
export const MAX_TRACKED_DATASETS = 10_000;

function zero(): IngestionCounts {
  return { requests: 0, received: 0, processed: 0, duplicates: 0, failed: 0, rejectedRequests: 0 };
}

export class IngestionCounters {
  private readonly byDataset = new Map<string, IngestionCounts>();

  constructor(
    private readonly observer?: IngestionObserver,
    private readonly maxTracked = MAX_TRACKED_DATASETS,
  ) {}

  private entry(datasetId: string): IngestionCounts {
    let counts = this.byDataset.get(datasetId);
    if (!counts) {
      if (this.byDataset.size >= this.maxTracked) this.evictOne();
      counts = zero();
      this.byDataset.set(datasetId, counts);
    }
    return counts;
  }

  /** Drops the oldest id that only ever had refused calls (guessed or mistyped ids), else the oldest. */
  private evictOne(): void {
    for (const [id, counts] of this.byDataset) {
      if (counts.requests === 0) {
        this.byDataset.delete(id);
        return;
      }
    }
    const oldest = this.byDataset.keys().next();
    if (!oldest.done) this.byDataset.delete(oldest.value);
  }

  recordAccepted(datasetId: string, outcome: { accepted: number; processed?: number; duplicates?: number; failed?: number }): void {
    const counts = this.entry(datasetId);
    counts.requests += 1;
    counts.received += outcome.accepted;
    counts.processed += outcome.processed ?? outcome.accepted;
    counts.duplicates += outcome.duplicates ?? 0;
    counts.failed += outcome.failed ?? 0;
    this.observer?.accepted(datasetId, outcome);
  }

  recordRejected(datasetId: string): void {
    this.entry(datasetId).rejectedRequests += 1;
    this.observer?.rejected(datasetId);
  }

  /** Reading never adds an entry: asking about an id costs no memory. */
  snapshot(datasetId: string): IngestionCounts {
    return { ...(this.byDataset.get(datasetId) ?? zero()) };
  }

  /** Accepted ingest calls over every dataset (the metrics' importance score compares against it). */
  totalRequests(): number {
    let total = 0;
    for (const counts of this.byDataset.values()) total += counts.requests;
    return total;
  }
}
