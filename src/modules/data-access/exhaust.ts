// Exhaust: the raw (or failed) events of a dataset, one gzipped JSON-lines file per UTC day, handed
// out as signed download links (the original's GET /v2/data/exhaust/{dataset_id}). The original
// lists the files its pipeline backed up to cloud storage; here the gateway writes each day's file
// from its event store into the object store when asked, and writes it again only when the day's
// event count has changed since (late events), so a repeated request costs one counting query.
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import type pg from 'pg';
import { GatewayError } from '../../errors.js';
import type { ObjectStore } from '../../platform/object-store/object-store.js';
import type { DatasetService } from '../datasets/index.js';
import type { ExhaustType } from './types.js';
import { datasetIdLengthProblem } from '../datasets/index.js';

/** Longest range one request may cover (the original's exhaust_query_range). */
const EXHAUST_MAX_DAYS = 31;
const DAY_MS = 86_400_000;
/** Rows read from the store per round trip while a day's file is written. */
const PAGE_ROWS = 1000;

export interface ExhaustRange {
  type?: ExhaustType | null;
  /** First and last day (YYYY-MM-DD, UTC), both included. */
  from?: string | null;
  to?: string | null;
  /** LAST_<n>_DAYS: today and the n-1 days before. */
  since?: string | null;
}

export interface ExhaustFiles {
  expiresAt: Date;
  /** Every file's link, oldest day first. */
  files: string[];
  /** The links of each day that had events. */
  periodWiseFiles: Record<string, string[]>;
}

function invalid(message: string): GatewayError {
  return new GatewayError('DATA_EXHAUST_INVALID_INPUT', message);
}

function dayOf(text: string, field: string): number {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text) || Number.isNaN(Date.parse(`${text}T00:00:00Z`))) throw invalid(`${field} must be a day written YYYY-MM-DD (got ${JSON.stringify(text.slice(0, 40))})`);
  return Date.parse(`${text}T00:00:00Z`);
}

/** First and last day (UTC midnights) of a request, checked. */
function exhaustDays(range: ExhaustRange, now: number): { first: number; last: number } {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  let first: number;
  let last: number;
  if (range.since) {
    const match = /^LAST_(\d{1,3})_DAYS$/.exec(range.since);
    if (!match) throw invalid(`since must be LAST_<n>_DAYS (got ${JSON.stringify(range.since.slice(0, 40))})`);
    const days = Number(match[1]);
    if (days < 1) throw invalid('since must cover at least one day');
    [first, last] = [today - (days - 1) * DAY_MS, today];
  } else {
    if (!range.from) throw invalid('give from (and to), or since');
    first = dayOf(range.from, 'from');
    last = range.to ? dayOf(range.to, 'to') : today;
  }
  if (last < first) throw invalid('Invalid date range! to must not be before from');
  if ((last - first) / DAY_MS + 1 > EXHAUST_MAX_DAYS) throw invalid(`Invalid date range! make sure your range cannot be more than ${EXHAUST_MAX_DAYS} days`);
  return { first, last };
}

export interface ExhaustOptions {
  /** Lifetime of the links. */
  expirySeconds: number;
  now?: () => number;
}

export function createExhaust(datasets: DatasetService, pool: pg.Pool, store: ObjectStore, options: ExhaustOptions) {
  const source = (type: ExhaustType) =>
    type === 'raw'
      ? { table: 'events', time: 'event_time', columns: 'id, payload' }
      : { table: 'failed_events', time: 'arrival_time', columns: "id, jsonb_build_object('stage', stage, 'reason', reason, 'event', payload) AS payload" };

  /** Writes one day's file (JSON lines, gzipped) from the store, a page at a time. */
  async function writeDay(datasetId: string, type: ExhaustType, day: number, key: string): Promise<void> {
    const { table, time, columns } = source(type);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'gateway-exhaust-'));
    const file = path.join(dir, 'day.json.gz');
    try {
      async function* lines(): AsyncGenerator<string> {
        let after = '0';
        for (;;) {
          const { rows } = await pool.query<{ id: string; payload: unknown }>(
            `SELECT ${columns} FROM ${table} WHERE dataset_id = $1 AND ${time} >= $2 AND ${time} < $3 AND id > $4 ORDER BY id LIMIT ${PAGE_ROWS}`,
            [datasetId, new Date(day), new Date(day + DAY_MS), after],
          );
          for (const row of rows) yield `${JSON.stringify(row.payload)}\n`;
          if (rows.length < PAGE_ROWS) return;
          after = rows[rows.length - 1]!.id;
        }
      }
      await pipeline(Readable.from(lines()), createGzip(), createWriteStream(file));
      await store.putFile(key, file, 'application/gzip');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  return {
    async files(datasetId: string, range: ExhaustRange): Promise<ExhaustFiles> {
      const idProblem = datasetIdLengthProblem(datasetId);
      if (idProblem) throw invalid(`dataset_id ${idProblem}`);
      const type = range.type ?? 'raw';
      const now = options.now?.() ?? Date.now();
      const { first, last } = exhaustDays(range, now);
      const dataset = await datasets.get(datasetId, { stage: 'live' }).catch((error: unknown) => {
        throw error instanceof GatewayError && error.code === 'DATASET_NOT_FOUND' ? new GatewayError('DATASET_NOT_FOUND', `Record not found: no published dataset ${datasetId}`) : error;
      });
      const { table, time } = source(type);
      const { rows: counts } = await pool.query<{ day: string; events: string }>(
        `SELECT to_char(${time} AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*) AS events FROM ${table} WHERE dataset_id = $1 AND ${time} >= $2 AND ${time} < $3 GROUP BY 1 ORDER BY 1`,
        [dataset.datasetId, new Date(first), new Date(last + DAY_MS)],
      );
      if (counts.length === 0) throw new GatewayError('DATA_EXHAUST_NO_FILES', 'Date range provided does not have any backup files');
      const { rows: written } = await pool.query<{ day: string; events: string }>(
        "SELECT to_char(day, 'YYYY-MM-DD') AS day, events FROM exhaust_files WHERE dataset_id = $1 AND kind = $2 AND day BETWEEN $3 AND $4",
        [dataset.datasetId, type, new Date(first), new Date(last)],
      );
      const writtenCounts = new Map(written.map((row) => [row.day, row.events]));
      const periodWiseFiles: Record<string, string[]> = {};
      for (const { day: date, events } of counts) {
        const key = `exhaust/${type}/${dataset.datasetId}/${date}.json.gz`;
        if (writtenCounts.get(date) !== events) {
          await writeDay(dataset.datasetId, type, Date.parse(`${date}T00:00:00Z`), key);
          await pool.query(
            'INSERT INTO exhaust_files (dataset_id, kind, day, events, object_key) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (dataset_id, kind, day) DO UPDATE SET events = EXCLUDED.events, object_key = EXCLUDED.object_key, written_at = now()',
            [dataset.datasetId, type, date, events, key],
          );
        }
        periodWiseFiles[date] = [await store.signedUrl(key, 'read', options.expirySeconds)];
      }
      return { expiresAt: new Date(now + options.expirySeconds * 1000), files: Object.values(periodWiseFiles).flat(), periodWiseFiles };
    },
  };
}
