// Per-dataset ingestion counters kept by the gateway (received, processed, duplicates, failed),
// read by the ingestion stats and the metrics' importance score; in memory, since they describe this
// process's own traffic.

export interface IngestionCounts {
  requests: number;
  received: number;
  processed: number;
  duplicates: number;
  failed: number;
  rejectedRequests: number;
}

/** Told of every count as it happens (the Prometheus metrics, src/telemetry/metrics.ts). */
export interface IngestionObserver {
  accepted(datasetId: string, outcome: { accepted: number; processed?: number; duplicates?: number; failed?: number }): void;
  rejected(datasetId: string): void;
}

export class IngestionCounters {
  private readonly byDataset = new Map<string, IngestionCounts>();

  constructor(private readonly observer?: IngestionObserver) {}

  private entry(datasetId: string): IngestionCounts {
    let counts = this.byDataset.get(datasetId);
    if (!counts) {
      counts = { requests: 0, received: 0, processed: 0, duplicates: 0, failed: 0, rejectedRequests: 0 };
      this.byDataset.set(datasetId, counts);
    }
    return counts;
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

  snapshot(datasetId: string): IngestionCounts {
    return { ...this.entry(datasetId) };
  }

  /** Accepted ingest calls over every dataset (the metrics' importance score compares against it). */
  totalRequests(): number {
    let total = 0;
    for (const counts of this.byDataset.values()) total += counts.requests;
    return total;
  }
}
