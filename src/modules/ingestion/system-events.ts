// The platform's processing telemetry on the embedded defaults: what Obsrv's pipeline writes to the
// Druid datasource system-events (the console's home, ingestion and processing charts read it),
// written by this gateway from what the embedded event store made of each ingest call. One row per
// minute, dataset, stage (ctx_pdata_pid: extractor, validator, dedup, denorm, transformer, router)
// and error code, counting the events the stage passed (no error code) or refused (its code), with
// the processing time of the passed ones summed in milliseconds.
//
// Counts are gathered in memory and written every FLUSH_INTERVAL_MS (and before this gateway answers
// a query on system-events) in one upsert, so an ingest call pays nothing for them and concurrent
// ingests never wait on the same telemetry row. A gateway that dies loses at most that interval's
// telemetry, never an event. Rows older than the metrics retention are dropped as it writes.
import type pg from 'pg';
import type { Logger } from '../../logger.js';
import type { PublishOutcome, RefusingStage } from '../../platform/event-bus/event-bus.js';
import type { Datasource } from '../../platform/query-engine/query-engine.js';
import type { DatasetRecord } from '../datasets/index.js';

export const SYSTEM_EVENTS_DATASOURCE = 'system-events';

/** The datasource's columns besides __time: what a native query may name. */
export const SYSTEM_EVENTS_COLUMNS: ReadonlySet<string> = new Set(['ctx_module', 'ctx_pdata_pid', 'ctx_dataset', 'ctx_dataset_type', 'dataset', 'error_code', 'count', 'total_processing_time']);

/** Their Druid types: the console's charts divide total_processing_time by count, as LONGs. */
const SYSTEM_EVENTS_COLUMN_TYPES: ReadonlyMap<string, 'long' | 'string'> = new Map(
  [...SYSTEM_EVENTS_COLUMNS].map((column) => [column, column === 'count' || column === 'total_processing_time' ? 'long' : 'string']),
);

/** The stages in processing order, and the code each gives the events it refuses. */
const STAGES = ['extractor', 'validator', 'dedup', 'denorm', 'transformer', 'router'] as const;
type PipelineStage = (typeof STAGES)[number];
const REFUSALS: Record<RefusingStage, { stage: PipelineStage; code: string }> = {
  extraction: { stage: 'extractor', code: 'EXTRACTION_FAILED' },
  validation: { stage: 'validator', code: 'VALIDATION_FAILED' },
  dedup: { stage: 'dedup', code: 'DUPLICATE_EVENT' },
  // A master record without its data_key cannot be stored: the last stage refuses it.
  master: { stage: 'router', code: 'MISSING_DATA_KEY' },
};

const FLUSH_INTERVAL_MS = 1_000;
const MINUTE_MS = 60_000;
/** Retention runs at most this often (a DELETE on the key's leading column). */
const RETENTION_EVERY_MS = 10 * MINUTE_MS;

interface Row {
  minute: number;
  dataset: string;
  datasetType: string;
  stage: PipelineStage;
  errorCode: string;
  count: number;
  totalMs: number;
}

export interface SystemEventsOptions {
  retentionMs: number;
  logger: Logger;
  now?: () => number;
}

export class SystemEventsRecorder {
  private pending = new Map<string, Row>();
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private lastRetentionMs = 0;
  private readonly now: () => number;

  constructor(
    private readonly pool: pg.Pool,
    private readonly options: SystemEventsOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  /** The datasource the embedded query engine answers system-events from. */
  readonly datasource: Datasource = { name: SYSTEM_EVENTS_DATASOURCE, columns: SYSTEM_EVENTS_COLUMNS, columnTypes: SYSTEM_EVENTS_COLUMN_TYPES };

  /** Since when rows are kept: older ones are deleted (at the latest ten minutes after they age out) and never counted. */
  keptSinceMs(): number {
    return this.now() - this.options.retentionMs;
  }

  /** Counts one ingest call: every stage's passed events (with `durationMs` each) and its refusals. */
  record(dataset: Pick<DatasetRecord, 'datasetId' | 'type'>, outcome: PublishOutcome, durationMs: number): void {
    if (!outcome.refusedBy) return;
    const minute = Math.floor(this.now() / MINUTE_MS) * MINUTE_MS;
    const refused = outcome.refusedBy;
    let passing = outcome.accepted;
    const add = (stage: PipelineStage, errorCode: string, count: number, totalMs: number) => {
      if (count <= 0) return;
      const key = `${minute}\u0000${dataset.datasetId}\u0000${stage}\u0000${errorCode}`;
      const row = this.pending.get(key) ?? { minute, dataset: dataset.datasetId, datasetType: dataset.type, stage, errorCode, count: 0, totalMs: 0 };
      row.count += count;
      row.totalMs += totalMs;
      this.pending.set(key, row);
    };
    for (const stage of STAGES) {
      for (const [refusing, at] of Object.entries(REFUSALS) as [RefusingStage, { stage: PipelineStage; code: string }][]) {
        if (at.stage !== stage) continue;
        const count = refused[refusing] ?? 0;
        add(stage, at.code, count, 0);
        passing -= count;
      }
      add(stage, '', passing, Math.round(durationMs) * passing);
    }
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.flush().catch((error: unknown) => this.options.logger.warn({ err: error }, 'system-events telemetry could not be written')), FLUSH_INTERVAL_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush().catch((error: unknown) => this.options.logger.warn({ err: error }, 'system-events telemetry could not be written'));
  }

  /** Writes what was counted since the last write (one statement; flushes never overlap). */
  flush(): Promise<void> {
    this.writing = this.writing.catch(() => undefined).then(() => this.write());
    return this.writing;
  }

  private async write(): Promise<void> {
    const rows = [...this.pending.values()];
    this.pending = new Map();
    if (rows.length > 0) {
      // Sorted by the key: two gateways upserting the same rows lock them in the same order.
      rows.sort((a, b) => a.minute - b.minute || cmp(a.dataset, b.dataset) || cmp(a.stage, b.stage) || cmp(a.errorCode, b.errorCode));
      try {
        await this.pool.query(
          `INSERT INTO system_events (minute, ctx_dataset, ctx_pdata_pid, error_code, ctx_dataset_type, count, total_processing_time)
           SELECT to_timestamp(r.minute / 1000.0), r.dataset, r.stage, r.error_code, r.dataset_type, r.count, r.total_ms
             FROM jsonb_to_recordset($1::jsonb) AS r(minute float8, dataset text, stage text, error_code text, dataset_type text, count bigint, total_ms bigint)
           ON CONFLICT (minute, ctx_dataset, ctx_pdata_pid, error_code)
           DO UPDATE SET count = system_events.count + excluded.count, total_processing_time = system_events.total_processing_time + excluded.total_processing_time`,
          [
            JSON.stringify(
              rows.map((row) => ({ minute: row.minute, dataset: row.dataset, stage: row.stage, error_code: row.errorCode, dataset_type: row.datasetType, count: row.count, total_ms: row.totalMs })),
            ),
          ],
        );
      } catch (error) {
        // Kept for the next write rather than lost to a passing database outage.
        for (const row of rows) this.merge(row);
        throw error;
      }
    }
    const now = this.now();
    if (now - this.lastRetentionMs >= RETENTION_EVERY_MS) {
      this.lastRetentionMs = now;
      await this.pool.query('DELETE FROM system_events WHERE minute < $1', [new Date(now - this.options.retentionMs)]);
    }
  }

  private merge(row: Row): void {
    const key = `${row.minute}\u0000${row.dataset}\u0000${row.stage}\u0000${row.errorCode}`;
    const kept = this.pending.get(key);
    if (kept) {
      kept.count += row.count;
      kept.totalMs += row.totalMs;
    } else this.pending.set(key, row);
  }
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
