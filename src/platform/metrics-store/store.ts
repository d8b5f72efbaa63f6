// The embedded metrics store: series (a name and labels) and their samples in PostgreSQL, read
// back by the PromQL evaluator. Several gateways on one database write their own series (each
// carries its `instance` label) and all read every series.
import type { LabelPattern } from '../promql/label-pattern.js';
import os from 'node:os';
import type pg from 'pg';
import type { LabelMatcher } from '../promql/parser.js';
import { matchesAll, type Labels, type SampleSource, type StoredSeries } from '../promql/evaluator.js';

export interface SampleBatch {
  atMs: number;
  samples: { labels: Labels; value: number }[];
}

const HOUR_MS = 3_600_000;

/**
 * SQL packing the samples of a group, oldest first, as chunks store them: the times (ms, exact as
 * doubles) and the values as big-endian doubles, 8 bytes each.
 */
const PACKED_TIMES = "string_agg(float8send(at_ms::float8), ''::bytea ORDER BY at_ms)";
const PACKED_VALUES = "string_agg(float8send(value), ''::bytea ORDER BY at_ms)";

/** Most series one selector may read: a query over more is refused instead of slowing every other. */
export const MAX_SERIES_PER_SELECTOR = 20_000;

export class MetricsStore implements SampleSource {
  /** Series ids this process has written or read, by signature (ids never change once given). */
  private readonly ids = new Map<string, number>();

  constructor(private readonly pool: pg.Pool) {}

  /** Writes one sampling of many series in two statements: the series (new ones added), then the samples. */
  async write(batch: SampleBatch): Promise<void> {
    if (batch.samples.length === 0) return;
    const keys = batch.samples.map((sample) => seriesKey(sample.labels));
    const unknown = keys.map((key, index) => ({ key, index })).filter(({ key }) => !this.ids.has(key));
    if (unknown.length > 0) {
      // DO UPDATE (not DO NOTHING) so RETURNING gives the id of a series another gateway added first.
      const result = await this.pool.query<{ id: number; signature: string }>(
        `INSERT INTO metric_series (name, labels, signature, last_sample_ms)
         SELECT n, l::jsonb, s, $4 FROM unnest($1::text[], $2::text[], $3::text[]) AS t(n, l, s)
         ON CONFLICT (signature) DO UPDATE SET last_sample_ms = EXCLUDED.last_sample_ms
         RETURNING id, signature`,
        [unknown.map(({ index }) => batch.samples[index]!.labels.__name__ ?? ''), unknown.map(({ index }) => JSON.stringify(batch.samples[index]!.labels)), unknown.map(({ key }) => key), batch.atMs],
      );
      for (const row of result.rows) this.ids.set(row.signature, row.id);
    }
    const seriesIds = keys.map((key) => this.ids.get(key)!);
    await this.pool.query(
      `WITH written AS (
         INSERT INTO metric_samples (series_id, at_ms, value)
         SELECT * FROM unnest($1::int[], array_fill($2::bigint, ARRAY[cardinality($1::int[])]), $3::float8[])
         ON CONFLICT (series_id, at_ms) DO UPDATE SET value = EXCLUDED.value
       )
       UPDATE metric_series SET last_sample_ms = $2 WHERE id = ANY($1::int[]) AND last_sample_ms < $2 - 3600000`,
      [seriesIds, batch.atMs, batch.samples.map((sample) => sample.value)],
    );
  }

  async select(matchers: readonly LabelMatcher[], windowFromMs: number, windowToMs: number): Promise<StoredSeries[]> {
    const [fromMs, toMs] = [storable(windowFromMs), storable(windowToMs)];
    if (fromMs > toMs) return [];
    const name = matchers.find((matcher) => matcher.label === '__name__' && matcher.op === '=')?.value;
    const candidates = await this.pool.query<{ id: number; labels: Record<string, string> }>(
      name === undefined ? 'SELECT id, labels FROM metric_series WHERE last_sample_ms >= $1' : 'SELECT id, labels FROM metric_series WHERE name = $2 AND last_sample_ms >= $1',
      // A series quiet since before the window (give or take the hourly refresh) has nothing in it.
      name === undefined ? [fromMs - 3_600_000] : [fromMs - 3_600_000, name],
    );
    const patterns = new Map<string, LabelPattern>();
    const matching = candidates.rows.filter((row) => matchesAll(row.labels, matchers, patterns));
    if (matching.length === 0) return [];
    if (matching.length > MAX_SERIES_PER_SELECTOR) throw new TooManySeriesError(matching.length);
    // Completed hours are stored as one chunk per series and hour, the current hour as rows; the
    // server joins each series' parts, oldest first (a chunk before rows starting with it), into
    // one run of values and one of the times not evenly spaced, 8 bytes a number as chunks store
    // them, sent as base64 (a third shorter than bytea's hex, and quicker to decode): nothing is
    // printed as a number by the server nor parsed here. Each part's start, count and spacing
    // (when even) lay out the times. The runs are trimmed to the window below.
    const samples = await this.pool.query<{ series_id: number; times: string | null; values: string; starts: string[]; counts: number[]; steps: (number | null)[] }>(
      `SELECT series_id, encode(string_agg(times, ''::bytea ORDER BY start_ms, part), 'base64') AS times,
              encode(string_agg(values, ''::bytea ORDER BY start_ms, part), 'base64') AS values,
              array_agg(start_ms ORDER BY start_ms, part) AS starts, array_agg(samples ORDER BY start_ms, part) AS counts,
              array_agg(step_ms ORDER BY start_ms, part) AS steps
         FROM (SELECT series_id, start_ms, 0 AS part, samples, step_ms, CASE WHEN step_ms IS NULL THEN times END AS times, values FROM metric_chunks
                WHERE series_id = ANY($1::int[]) AND end_ms >= $2 AND start_ms <= $3
               UNION ALL
               SELECT series_id, min(at_ms), 1, count(*)::int, NULL, ${PACKED_TIMES}, ${PACKED_VALUES}
                 FROM metric_samples WHERE series_id = ANY($1::int[]) AND at_ms BETWEEN $2 AND $3 GROUP BY series_id) AS parts
        GROUP BY series_id`,
      [matching.map((row) => row.id), fromMs, toMs],
    );
    const labelsById = new Map(matching.map((row) => [row.id, row.labels]));
    const out: StoredSeries[] = [];
    for (const row of samples.rows) {
      const values = doubles(Buffer.from(row.values, 'base64'));
      const times = layTimes(row, values.length);
      // In place (the arrays are this row's own): samples in the window, each later than the one
      // kept before it (a sample both in a chunk and in the rows is kept once, from the chunk).
      let n = 0;
      for (let i = 0; i < times.length; i += 1) {
        const t = times[i]!;
        if (t < fromMs || t > toMs || (n > 0 && t <= times[n - 1]!)) continue;
        times[n] = t;
        values[n] = values[i]!;
        n += 1;
      }
      if (n > 0) out.push({ labels: labelsById.get(row.series_id)!, times: times.subarray(0, n), values: values.subarray(0, n) });
    }
    return out;
  }

  /**
   * Moves the samples in [fromMs, beforeMs) into one chunk per series and hour, an hour per
   * statement (a backlog never outgrows the statement timeout). Rows another gateway moves at the
   * same time are locked, so each sample moves once. Returns how many samples moved.
   */
  async compact(beforeMs: number, fromMs: number): Promise<number> {
    let moved = 0;
    for (let hour = Math.floor(fromMs / HOUR_MS) * HOUR_MS; hour < beforeMs; hour += HOUR_MS) {
      const result = await this.pool.query<{ moved: string }>(
        `WITH moved AS (DELETE FROM metric_samples WHERE at_ms >= $1 AND at_ms < $2 RETURNING series_id, at_ms, value),
              chunked AS (
                INSERT INTO metric_chunks (series_id, start_ms, end_ms, samples, step_ms, times, values)
                SELECT series_id, min(at_ms), max(at_ms), count(*), CASE WHEN min(gap) = max(gap) THEN min(gap) END, ${PACKED_TIMES}, ${PACKED_VALUES}
                  FROM (SELECT series_id, at_ms, value, at_ms - lag(at_ms) OVER (PARTITION BY series_id ORDER BY at_ms) AS gap FROM moved) AS spaced
                 GROUP BY series_id
                RETURNING samples AS n)
         SELECT coalesce(sum(n), 0)::text AS moved FROM chunked`,
        [Math.max(hour, fromMs), Math.min(hour + HOUR_MS, beforeMs)],
      );
      moved += Number(result.rows[0]?.moved ?? 0);
    }
    return moved;
  }

  /** Every series with a sample in [fromMs, toMs] that the matchers select (all, with none): for /api/v1/series and label listings. */
  async series(matcherSets: readonly (readonly LabelMatcher[])[], windowFromMs: number, windowToMs: number): Promise<Labels[]> {
    const [fromMs, toMs] = [storable(windowFromMs), storable(windowToMs)];
    const rows = await this.pool.query<{ labels: Record<string, string> }>(
      `SELECT labels FROM metric_series s WHERE s.last_sample_ms >= $1::bigint - 3600000
          AND (EXISTS (SELECT 1 FROM metric_samples m WHERE m.series_id = s.id AND m.at_ms BETWEEN $1::bigint AND $2::bigint)
               OR EXISTS (SELECT 1 FROM metric_chunks c WHERE c.series_id = s.id AND c.end_ms >= $1::bigint AND c.start_ms <= $2::bigint))`,
      [fromMs, toMs],
    );
    const patterns = new Map<string, LabelPattern>();
    const all = rows.rows.map((row) => row.labels);
    return matcherSets.length === 0 ? all : all.filter((labels) => matcherSets.some((matchers) => matchesAll(labels, matchers, patterns)));
  }

  /** Drops samples older than `cutoffMs`, then series with none left; returns how many samples went. */
  async deleteBefore(cutoffMs: number): Promise<number> {
    const deleted = await this.pool.query('DELETE FROM metric_samples WHERE at_ms < $1', [cutoffMs]);
    const chunks = await this.pool.query<{ n: string }>('WITH gone AS (DELETE FROM metric_chunks WHERE end_ms < $1 RETURNING samples AS n) SELECT coalesce(sum(n), 0)::text AS n FROM gone', [
      cutoffMs,
    ]);
    await this.pool.query(
      `DELETE FROM metric_series s WHERE s.last_sample_ms < $1
          AND NOT EXISTS (SELECT 1 FROM metric_samples m WHERE m.series_id = s.id)
          AND NOT EXISTS (SELECT 1 FROM metric_chunks c WHERE c.series_id = s.id)`,
      [cutoffMs],
    );
    // Every gateway runs this hourly, so no process keeps the id of a series dropped here.
    this.ids.clear();
    return (deleted.rowCount ?? 0) + Number(chunks.rows[0]?.n ?? 0);
  }
}

export class TooManySeriesError extends Error {
  constructor(readonly count: number) {
    super(`the query selects ${count} series; at most ${MAX_SERIES_PER_SELECTOR} may be read by one selector: add label matchers`);
  }
}

/** Furthest from 1970 a time may be (JavaScript's Date range): an `@` or offset beyond it selects nothing, instead of overflowing a bigint. */
export const MAX_TIME_MS = 8.64e15;

function storable(ms: number): number {
  return Number.isNaN(ms) ? 0 : Math.round(Math.min(MAX_TIME_MS, Math.max(-MAX_TIME_MS, ms)));
}

/** A series' identity in the table: its labels sorted, as JSON (text PostgreSQL can hold, whatever the values). */
function seriesKey(labels: Labels): string {
  return JSON.stringify(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** A series' times, part after part: counted on from the start when evenly spaced, else the next of those sent. */
function layTimes(parts: { times: string | null; starts: string[]; counts: number[]; steps: (number | null)[] }, length: number): Float64Array {
  const sent = parts.times === null ? new Float64Array(0) : doubles(Buffer.from(parts.times, 'base64'));
  const times = new Float64Array(length);
  let at = 0;
  let read = 0;
  parts.starts.forEach((start, p) => {
    const count = parts.counts[p]!;
    const step = parts.steps[p];
    if (step === null || step === undefined) {
      times.set(sent.subarray(read, read + count), at);
      read += count;
    } else {
      const first = Number(start);
      for (let i = 0; i < count; i += 1) times[at + i] = first + i * step;
    }
    at += count;
  });
  return times;
}

/**
 * Big-endian doubles packed 8 bytes each, as a Float64Array: the bytes are swapped in place (the
 * buffer is ours, freshly decoded) and viewed, with no per-number work in JavaScript.
 */
const LITTLE_ENDIAN = os.endianness() === 'LE';

function doubles(buffer: Buffer): Float64Array {
  const count = buffer.length >> 3;
  if (LITTLE_ENDIAN) buffer.swap64();
  // A view needs 8-byte alignment; a small buffer may sit unaligned in Node's pool, then it is copied.
  if (buffer.byteOffset % 8 === 0) return new Float64Array(buffer.buffer, buffer.byteOffset, count);
  return new Float64Array(Uint8Array.prototype.slice.call(buffer, 0, count * 8).buffer);
}
