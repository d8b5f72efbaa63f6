// Samples the gateway's own metrics (what GET /metrics shows) into the embedded metrics store on
// an interval, as a Prometheus scrape would: each series gets `job` and `instance` labels, and a
// target label `endpoint` is kept as `exported_endpoint` (what the console's dashboards query), and
// `up{job, instance}` is 1 at each of this gateway's samplings.
// Counters and histograms are born at zero: the first time a series is seen, a zero sample is
// written at the previous sampling, so increase() over the first interval counts its first events.
// Samplings fall on the interval's grid (as Prometheus aligns its scrapes' timestamps): evenly
// spaced samples are stored without their times and read back a window a step (see changeColumn).
import type { MetricObjectWithValues, MetricValue } from 'prom-client';
import type { Logger } from '../../logger.js';
import type { Labels } from '../promql/evaluator.js';
import type { MetricsStore } from './store.js';

/** A series the whole database shares (read from the shared store, not from this process). */
export interface SharedSample {
  name: string;
  /** Its labels besides `__name__` and `job` (no `instance`: any gateway may write the next sampling). */
  labels: Record<string, string>;
  value: number;
  cumulative: boolean;
}

/**
 * The shared series: written by one gateway per database, the lease's holder; every gateway still
 * writes its own figures with its `instance` label.
 */
export interface SharedSampling {
  lease: { tryHold(): Promise<boolean> };
  /** Metric names the shared snapshot writes: this process's series of those names are not sampled (they would be counted twice). */
  names: ReadonlySet<string>;
  snapshot(): Promise<SharedSample[]>;
  /** Told of each sampling of the shared series this gateway wrote. */
  written?: () => void;
}

export interface SamplerOptions {
  intervalMs: number;
  retentionMs: number;
  /** This gateway's `instance` label (host:port). */
  instance: string;
  logger: Logger;
  /** The clock (tests inject one). */
  now?: () => number;
  shared?: SharedSampling;
}

export type MetricsSnapshot = () => Promise<MetricObjectWithValues<MetricValue<string>>[]>;

const RETENTION_EVERY_MS = 3_600_000;
const COMPACT_EVERY_MS = 300_000;
const CUMULATIVE = new Set(['counter', 'histogram', 'summary']);

export class MetricsSampler {
  private readonly seen = new Set<string>();
  private previousAtMs: number;
  private timer: NodeJS.Timeout | undefined;
  private lastRetentionMs = 0;
  private lastCompactionMs = 0;
  /** Up to where this sampler has compacted; the whole retention the first time. */
  private compactedToMs: number | undefined;
  private running: Promise<unknown> | undefined;
  private readonly now: () => number;

  constructor(
    private readonly store: MetricsStore,
    private readonly snapshot: MetricsSnapshot,
    private readonly options: SamplerOptions,
  ) {
    this.now = options.now ?? Date.now;
    const { intervalMs } = options;
    this.previousAtMs = Math.floor(this.now() / intervalMs) * intervalMs;
  }

  /** Samples at every multiple of the interval from now on (each tick timed to the next one: setInterval drifts off the grid). */
  start(): void {
    const { intervalMs } = this.options;
    this.timer = setTimeout(
      () => {
        // A sampling still running (a slow database) is not overlapped: this tick is skipped.
        this.running ??= this.tick().finally(() => (this.running = undefined));
        this.start();
      },
      intervalMs - (this.now() % intervalMs),
    );
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    await this.running;
  }

  /** The multiple of the interval nearest to `ms` (a tick runs a few milliseconds after its own). */
  private onGrid(ms: number): number {
    return Math.round(ms / this.options.intervalMs) * this.options.intervalMs;
  }

  private async tick(): Promise<void> {
    try {
      const now = this.now();
      // A tick late by half an interval or more takes the next one's time; that one then has nothing to sample.
      const atMs = this.onGrid(now);
      if (atMs > this.previousAtMs) await this.sample(atMs);
      if (now - this.lastCompactionMs >= COMPACT_EVERY_MS) {
        this.lastCompactionMs = now;
        // Up to two samplings ago (a slower gateway may still be writing the last), into the hours'
        // chunks: what a query reads as rows is the last few minutes only.
        const before = now - 2 * this.options.intervalMs;
        await this.store.compact(before, this.compactedToMs ?? now - this.options.retentionMs);
        this.compactedToMs = before;
      }
      if (now - this.lastRetentionMs >= RETENTION_EVERY_MS) {
        this.lastRetentionMs = now;
        const deleted = await this.store.deleteBefore(now - this.options.retentionMs);
        if (deleted > 0) this.options.logger.info({ deleted }, 'metrics store: samples past retention deleted');
      }
    } catch (error) {
      this.options.logger.warn({ err: error }, 'metrics store: sampling failed; the next interval tries again');
    }
  }

  /** Takes one sample of every series at `atMs` (now by default); returns how many series were written. */
  async sample(atMs = this.now()): Promise<number> {
    // `up` as a Prometheus scrape writes it: 1 for each gateway that sampled (absent once it stops).
    const samples: { labels: Labels; value: number }[] = [{ labels: { __name__: 'up', job: 'gateway', instance: this.options.instance }, value: 1 }];
    const born: { labels: Labels; value: number }[] = [];
    const shared = this.options.shared;
    for (const metric of await this.snapshot()) {
      if (shared?.names.has(metric.name)) continue;
      for (const value of metric.values) {
        const labels = this.labelsOf((value as { metricName?: string }).metricName ?? metric.name, value.labels);
        samples.push({ labels, value: value.value });
        const key = JSON.stringify(labels);
        if (!this.seen.has(key)) {
          this.seen.add(key);
          if (CUMULATIVE.has(String(metric.type))) born.push({ labels, value: 0 });
        }
      }
    }
    const sharedBorn: { labels: Labels; value: number }[] = [];
    const holding = shared !== undefined && (await shared.lease.tryHold());
    if (holding) {
      for (const sample of await shared.snapshot()) {
        const labels: Labels = { __name__: sample.name, job: 'gateway', ...sample.labels };
        samples.push({ labels, value: sample.value });
        if (sample.cumulative) sharedBorn.push({ labels, value: 0 });
      }
    }
    // The zeros and the first sampling in one statement: a query between two would see a new
    // series at zero only (an increase() over nothing).
    const before = this.previousAtMs < atMs;
    await this.store.write(
      { atMs: this.previousAtMs, samples: before ? born : [] },
      // A shared series is born once per database, whichever gateway wrote it first.
      { atMs: this.previousAtMs, samples: before ? sharedBorn : [], newSeriesOnly: true },
      { atMs, samples },
    );
    this.previousAtMs = atMs;
    if (holding) shared.written?.();
    return samples.length;
  }

  private labelsOf(name: string, labels: Partial<Record<string, string | number>>): Labels {
    const out: Record<string, string> = { __name__: name, job: 'gateway', instance: this.options.instance };
    for (const [label, value] of Object.entries(labels)) {
      if (value === undefined || value === '') continue;
      out[label === 'endpoint' || label === 'job' || label === 'instance' ? `exported_${label}` : label] = String(value);
    }
    return out;
  }
}
