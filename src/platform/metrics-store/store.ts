// The embedded metrics store: series (a name and labels) and their samples in PostgreSQL, read
// back by the PromQL evaluator. Several gateways on one database write their own series (each
// carries its `instance` label) and all read every series.
import type { LabelPattern } from '../promql/label-pattern.js';
import os from 'node:os';
import type pg from 'pg';
import { ChunkCache, type DecodedChunk } from './chunk-cache.js';
import { SETTLE_MS } from './range-results.js';
import type { LabelMatcher } from '../promql/parser.js';
import { matchesAll, signature, type Labels, type SampleSource, type StoredSeries } from '../promql/evaluator.js';

export interface SampleBatch {
  atMs: number;
  samples: { labels: Labels; value: number }[];
  /**
   * Written only for series this statement adds to the store (a shared counter's zero at its birth:
   * a gateway taking the sampler's lease over must not write zeros over its predecessor's figures).
   */
  newSeriesOnly?: boolean;
}

const HOUR_MS = 3_600_000;
const DEFAULT_CHUNK_CACHE_BYTES = 64 * 2 ** 20;
/** A listed chunk: its start (int8) and sample count (int4), big-endian. */
const LISTED_CHUNK_BYTES = 12;

/**
 * SQL packing the samples of a group, oldest first, as chunks store them: the times (ms, exact as
 * doubles) and the values as big-endian doubles, 8 bytes each.
 */
const PACKED_TIMES = "string_agg(float8send(at_ms::float8), ''::bytea ORDER BY at_ms)";
const PACKED_VALUES = "string_agg(float8send(value), ''::bytea ORDER BY at_ms)";
/** The times of chunk `c`, evenly spaced, packed as PACKED_TIMES packs them. */
const EVEN_TIMES = "(SELECT string_agg(float8send((c.start_ms + i * c.step_ms)::float8), ''::bytea ORDER BY i) FROM generate_series(0, c.samples - 1) AS i)";

/** Most series one selector may read: a query over more is refused instead of slowing every other. */
export const MAX_SERIES_PER_SELECTOR = 20_000;

/**
 * A selection of more series than this is read in several statements at once, at most
 * PARALLEL_READS: PostgreSQL runs a statement on one core, so a few statements at once list and
 * pack a large selection sooner than one.
 */
const SERIES_PER_READ = 150;
const PARALLEL_READS = 4;

/** A row of MetricsStore.readParts: a series' chunks listed (`chunks`), or its rows packed. */
interface PartsRow {
  series_id: number;
  chunks: string | null;
  start_ms: string | null;
  samples: number | null;
  times: string | null;
  values: string | null;
}

export class MetricsStore implements SampleSource {
  /** Series ids this process has written or read, by signature (ids never change once given). */
  private readonly ids = new Map<string, number>();

  /** The evaluator's signature of each series read, by id (a series' labels never change): what select orders series by. */
  private readonly orderKeys = new Map<number, string>();

  /** See `generation`. */
  private changes = 0;

  /** Decoded chunks, kept between queries (`chunkCacheBytes`, 64 MiB unless told; 0 keeps none). */
  private readonly chunks: ChunkCache;

  constructor(
    private readonly pool: pg.Pool,
    options: { chunkCacheBytes?: number } = {},
  ) {
    this.chunks = new ChunkCache(options.chunkCacheBytes ?? DEFAULT_CHUNK_CACHE_BYTES);
  }

  /** How many chunks the cache holds, and their bytes (what METRICS_CHUNK_CACHE_MB bounds). */
  get chunkCache(): { chunks: number; bytes: number } {
    return { chunks: this.chunks.size, bytes: this.chunks.bytes };
  }

  /**
   * Changes when this process writes samples older than SETTLE_MS or deletes samples: answers
   * kept of older steps (RangeResultCache) no longer hold then. (Samplers write at their time of
   * sampling, so another gateway's writes are never older.)
   */
  get generation(): number {
    return this.changes;
  }

  /**
   * Writes samplings of many series in two statements: the series (new ones added), then the
   * samples of every sampling given, in one statement: a reader sees all of them or none (a
   * series' zero at its birth never without its first sampling).
   */
  async write(...batches: SampleBatch[]): Promise<void> {
    const written = batches.filter((batch) => batch.samples.length > 0);
    if (written.length === 0) return;
    // Counted once written (in `finally`: a failed statement may have written some): a query that
    // read the generation before then keeps nothing under the next one.
    const settled = Math.min(...written.map((batch) => batch.atMs)) < Date.now() - SETTLE_MS;
    try {
      await this.writeSamples(written);
    } finally {
      if (settled) this.changes += 1;
    }
  }

  private async writeSamples(batches: SampleBatch[]): Promise<void> {
    let rows = batches.flatMap((batch) =>
      batch.samples.map((sample) => ({ key: seriesKey(sample.labels), labels: sample.labels, atMs: batch.atMs, value: sample.value, newSeriesOnly: batch.newSeriesOnly === true })),
    );
    const created = new Set<string>();
    /** Series not yet known to this process, once each (one statement may not insert a row twice), with their latest time. */
    const unknown = new Map<string, { labels: Labels; atMs: number }>();
    for (const row of rows) {
      if (this.ids.has(row.key)) continue;
      const seen = unknown.get(row.key);
      if (seen === undefined || seen.atMs < row.atMs) unknown.set(row.key, row);
    }
    if (unknown.size > 0) {
      const entries = [...unknown];
      // DO UPDATE (not DO NOTHING) so RETURNING gives the id of a series another gateway added first.
      // xmax = 0: the row was inserted by this statement, not updated.
      const result = await this.pool.query<{ id: number; signature: string; created: boolean }>(
        `INSERT INTO metric_series (name, labels, signature, last_sample_ms)
         SELECT n, l::jsonb, s, t FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) AS u(n, l, s, t)
         ON CONFLICT (signature) DO UPDATE SET last_sample_ms = EXCLUDED.last_sample_ms
         RETURNING id, signature, (xmax = 0) AS created`,
        [entries.map(([, { labels }]) => labels.__name__ ?? ''), entries.map(([, { labels }]) => JSON.stringify(labels)), entries.map(([key]) => key), entries.map(([, { atMs }]) => atMs)],
      );
      for (const row of result.rows) {
        this.ids.set(row.signature, row.id);
        if (row.created) created.add(row.signature);
      }
    }
    rows = rows.filter((row) => !row.newSeriesOnly || created.has(row.key));
    if (rows.length === 0) return;
    const [seriesIds, times, values] = [rows.map((row) => this.ids.get(row.key)!), rows.map((row) => row.atMs), rows.map((row) => row.value)];
    const latest = Math.max(...batches.map((batch) => batch.atMs));
    await this.pool.query(
      `WITH written AS (
         INSERT INTO metric_samples (series_id, at_ms, value)
         SELECT * FROM unnest($1::int[], $2::bigint[], $3::float8[])
         ON CONFLICT (series_id, at_ms) DO UPDATE SET value = EXCLUDED.value
       )
       UPDATE metric_series SET last_sample_ms = $4::bigint WHERE id = ANY($1::int[]) AND last_sample_ms < $4::bigint - 3600000`,
      [seriesIds, times, values, latest],
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
    const ids = matching.map((row) => row.id);
    // Samples are stored as one chunk per series and hour (the current hour's grows every few
    // minutes), the latest minutes as rows. The chunks in the window are listed (their start and
    // sample count, packed per series, read from an index alone), and only those not in the cache
    // are fetched; the rows are packed per series as chunks are. One statement lists both, so a
    // compaction between them cannot hide samples. Numbers travel as 8-byte doubles in base64 (a
    // third shorter than bytea's hex, and quicker to decode): nothing is printed as a number by
    // the server nor parsed here. A series' chunks are listed by their end, the index's order (by
    // their start, PostgreSQL would sort them): the same
    // order for chunks that do not overlap, and put in order of start here when two do. A large
    // selection is read in several statements at once (SERIES_PER_READ), each series whole in one
    // (a sampling written between two of them may show in some series and not yet in others, as
    // between two selectors' reads).
    const reads = Math.min(PARALLEL_READS, Math.ceil(ids.length / SERIES_PER_READ));
    const perRead = Math.ceil(ids.length / reads);
    const parts = (await Promise.all(Array.from({ length: reads }, (_, i) => this.readParts(ids.slice(i * perRead, (i + 1) * perRead), fromMs, toMs)))).flat();
    const listed = parts.filter((row): row is PartsRow & { chunks: string } => row.chunks !== null);
    const recent = parts.filter((row): row is PartsRow & { start_ms: string; samples: number; times: string; values: string } => row.chunks === null);
    // Each series' chunks as listed: the cached ones in place, the others fetched into their slots.
    const partsById = new Map<number, (DecodedChunk | undefined)[]>();
    const missing: { seriesId: number; startMs: number; slots: (DecodedChunk | undefined)[]; slot: number }[] = [];
    for (const row of listed) {
      const packed = Buffer.from(row.chunks, 'base64');
      const slots: (DecodedChunk | undefined)[] = [];
      for (let at = 0; at + LISTED_CHUNK_BYTES <= packed.length; at += LISTED_CHUNK_BYTES) {
        // An int8 as its high and (unsigned) low halves: no BigInt made per chunk.
        const startMs = packed.readInt32BE(at) * 2 ** 32 + packed.readUInt32BE(at + 4);
        const count = packed.readInt32BE(at + 8);
        const chunk = this.chunks.get(row.series_id, startMs, count);
        if (chunk === undefined) missing.push({ seriesId: row.series_id, startMs, slots, slot: slots.length });
        slots.push(chunk);
      }
      partsById.set(row.series_id, slots);
    }
    const fetched = await this.fetchChunks(missing);
    // A chunk gone between the listing and the fetch (retention ran) leaves its slot empty: the window no longer has it.
    for (const { seriesId, startMs, slots, slot } of missing) slots[slot] = fetched.get(`${seriesId}:${startMs}`);
    const seriesParts = new Map<number, DecodedChunk[]>();
    for (const [seriesId, slots] of partsById) seriesParts.set(seriesId, inStartOrder(slots.filter((part) => part !== undefined)));
    // The rows come after the chunks of their series (a sample in both is kept once, from the chunk).
    for (const row of recent) {
      let parts = seriesParts.get(row.series_id);
      if (parts === undefined) seriesParts.set(row.series_id, (parts = []));
      parts.push({
        startMs: Number(row.start_ms),
        count: row.samples,
        stepMs: null,
        times: doubles(Buffer.from(row.times, 'base64')),
        values: doubles(Buffer.from(row.values, 'base64')),
      });
    }
    // In the order of their labels, as Prometheus's storage answers: what depends on the order (which
    // of equal values topk keeps, the order a sum adds in) does not depend on where rows lie.
    const out: StoredSeries[] = [];
    for (const row of this.inLabelOrder(matching)) {
      const parts = seriesParts.get(row.id);
      if (parts === undefined) continue;
      const series = new PartedSeries(row.labels, parts, fromMs, toMs);
      if (series.sampleCount > 0) out.push(series);
    }
    return out;
  }

  private inLabelOrder(rows: { id: number; labels: Labels }[]): { id: number; labels: Labels }[] {
    const keyed = rows.map((row) => {
      let key = this.orderKeys.get(row.id);
      if (key === undefined) this.orderKeys.set(row.id, (key = signature(row.labels)));
      return { key, row };
    });
    return keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)).map(({ row }) => row);
  }

  /** The chunks of series `ids` in [fromMs, toMs] listed, and their rows there packed (see select). */
  private async readParts(ids: number[], fromMs: number, toMs: number): Promise<PartsRow[]> {
    const parts = await this.pool.query<PartsRow>(
      `SELECT series_id, encode(string_agg(int8send(start_ms) || int4send(samples), ''::bytea ORDER BY end_ms), 'base64') AS chunks,
              NULL::bigint AS start_ms, NULL::int AS samples, NULL AS times, NULL AS values
         FROM metric_chunks WHERE series_id = ANY($1::int[]) AND end_ms >= $2 AND start_ms <= $3 GROUP BY series_id
       UNION ALL
       SELECT series_id, NULL, min(at_ms), count(*)::int, encode(${PACKED_TIMES}, 'base64'), encode(${PACKED_VALUES}, 'base64')
         FROM metric_samples WHERE series_id = ANY($1::int[]) AND at_ms BETWEEN $2 AND $3 GROUP BY series_id`,
      [ids, fromMs, toMs],
    );
    return parts.rows;
  }

  /** The chunks named, read and decoded (and cached), by `seriesId:startMs`; one missing was deleted since it was listed. */
  private async fetchChunks(wanted: { seriesId: number; startMs: number }[]): Promise<Map<string, DecodedChunk>> {
    const found = new Map<string, DecodedChunk>();
    if (wanted.length === 0) return found;
    const rows = await this.pool.query<{ series_id: number; start_ms: string; samples: number; step_ms: number | null; times: string | null; values: string }>(
      `SELECT c.series_id, c.start_ms, c.samples, c.step_ms, encode(c.times, 'base64') AS times, encode(c.values, 'base64') AS values
         FROM unnest($1::int[], $2::bigint[]) AS wanted(series_id, start_ms) JOIN metric_chunks c USING (series_id, start_ms)`,
      [wanted.map((chunk) => chunk.seriesId), wanted.map((chunk) => chunk.startMs)],
    );
    for (const row of rows.rows) {
      const chunk: DecodedChunk = {
        startMs: Number(row.start_ms),
        count: row.samples,
        stepMs: row.step_ms,
        times: row.times === null ? null : ownDoubles(row.times),
        values: ownDoubles(row.values),
      };
      this.chunks.put(row.series_id, chunk);
      found.set(`${row.series_id}:${chunk.startMs}`, chunk);
    }
    return found;
  }

  /**
   * Moves the samples in [fromMs, beforeMs) into one chunk per series and hour, an hour per
   * statement (a backlog never outgrows the statement timeout). The hour need not be over: the
   * sampler compacts every few minutes, appending to the hour's chunk, so the rows a query packs
   * (the slow part of reading) are only the last minutes'. A chunk grows only at its end: a
   * sample at or before its last one stays a row (a query keeps the chunk's). Rows another
   * gateway moves at the same time are locked, so each sample moves once. Returns how many
   * samples moved.
   */
  async compact(beforeMs: number, fromMs: number): Promise<number> {
    let moved = 0;
    for (let hour = Math.floor(fromMs / HOUR_MS) * HOUR_MS; hour < beforeMs; hour += HOUR_MS) {
      const result = await this.pool.query<{ moved: string }>(
        `WITH last AS (
                SELECT DISTINCT ON (series_id) series_id, start_ms, end_ms, samples, step_ms FROM metric_chunks
                 WHERE end_ms >= $3 AND start_ms >= $3 AND start_ms < $3::bigint + ${HOUR_MS} ORDER BY series_id, start_ms DESC),
              moved AS (
                DELETE FROM metric_samples m WHERE at_ms >= $1 AND at_ms < $2
                   AND NOT EXISTS (SELECT 1 FROM last WHERE last.series_id = m.series_id AND last.end_ms >= m.at_ms)
                RETURNING series_id, at_ms, value),
              packed AS (
                SELECT series_id, min(at_ms) AS start_ms, max(at_ms) AS end_ms, count(*)::int AS samples,
                       CASE WHEN min(gap) = max(gap) THEN min(gap) END AS step_ms, ${PACKED_TIMES} AS times, ${PACKED_VALUES} AS values
                  FROM (SELECT series_id, at_ms, value, at_ms - lag(at_ms) OVER (PARTITION BY series_id ORDER BY at_ms) AS gap FROM moved) AS spaced
                 GROUP BY series_id),
              -- Still evenly spaced when both parts are (or hold one sample) with the gap between them as their spacing.
              joined AS (
                SELECT p.*, last.start_ms AS chunk_start_ms,
                       CASE WHEN coalesce(last.step_ms, CASE WHEN last.samples = 1 THEN p.start_ms - last.end_ms END) = p.start_ms - last.end_ms
                             AND coalesce(p.step_ms, CASE WHEN p.samples = 1 THEN p.start_ms - last.end_ms END) = p.start_ms - last.end_ms
                            THEN p.start_ms - last.end_ms END AS joined_step_ms
                  FROM packed p JOIN last USING (series_id)),
              -- An evenly spaced chunk stores no times; one that stops being so gets its times written out.
              appended AS (
                UPDATE metric_chunks c
                   SET end_ms = j.end_ms, samples = c.samples + j.samples, values = c.values || j.values, step_ms = j.joined_step_ms,
                       times = CASE WHEN j.joined_step_ms IS NULL THEN coalesce(c.times, ${EVEN_TIMES}) || j.times END
                  FROM joined j
                 WHERE c.series_id = j.series_id AND c.start_ms = j.chunk_start_ms
                RETURNING j.samples AS n),
              created AS (
                INSERT INTO metric_chunks (series_id, start_ms, end_ms, samples, step_ms, times, values)
                SELECT series_id, start_ms, end_ms, samples, step_ms, CASE WHEN step_ms IS NULL THEN times END, values
                  FROM packed p WHERE NOT EXISTS (SELECT 1 FROM last WHERE last.series_id = p.series_id)
                RETURNING samples AS n)
         SELECT ((SELECT coalesce(sum(n), 0) FROM appended) + (SELECT coalesce(sum(n), 0) FROM created))::text AS moved`,
        [Math.max(hour, fromMs), Math.min(hour + HOUR_MS, beforeMs), hour],
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
    try {
      return await this.deleteSamplesBefore(cutoffMs);
    } finally {
      this.changes += 1;
    }
  }

  private async deleteSamplesBefore(cutoffMs: number): Promise<number> {
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

/**
 * A series as its parts (cached chunks, then the rows), trimmed to [fromMs, toMs]. A part's times
 * rise, so each part gives one run: from its first time in the window and later than the time
 * kept before it (a sample both in a chunk and in the rows after it is kept once, from the chunk)
 * to its last in the window. Nothing is copied until asked: the evaluator's column path reads the
 * runs into arrays it reuses (`readInto`); `times`/`values` join them into arrays of their own,
 * once, on first access (joined, a day of 600 series at 15 s takes ~55 MB).
 */
class PartedSeries implements StoredSeries {
  private readonly runs: { part: DecodedChunk; low: number; high: number }[] = [];
  readonly sampleCount: number;
  private whole: { times: Float64Array; values: Float64Array } | undefined;
  private facts: { evenSpacing: number | undefined; neverFalls: boolean } | undefined;

  constructor(
    readonly labels: Labels,
    parts: readonly DecodedChunk[],
    fromMs: number,
    toMs: number,
  ) {
    let count = 0;
    let lastKept = -Infinity;
    for (const part of parts) {
      const low = Math.max(countBelow(part, fromMs, false), count === 0 ? 0 : countBelow(part, lastKept, true));
      const high = countBelow(part, toMs, true);
      if (high <= low) continue;
      this.runs.push({ part, low, high });
      count += high - low;
      lastKept = timeAt(part, high - 1);
    }
    this.sampleCount = count;
  }

  get times(): Float64Array {
    return this.joined().times;
  }

  get values(): Float64Array {
    return this.joined().values;
  }

  /** See StoredSeries: from the chunks' spacing (an evenly spaced one stores no times) and what each chunk was found to hold once. */
  get evenSpacing(): number | undefined {
    return this.factsOf().evenSpacing;
  }

  get neverFalls(): boolean {
    return this.factsOf().neverFalls;
  }

  readInto(times: Float64Array, values: Float64Array): void {
    let kept = 0;
    for (const { part, low, high } of this.runs) {
      const whole = low === 0 && high === part.values.length;
      values.set(whole ? part.values : part.values.subarray(low, high), kept);
      const partTimes = part.times ?? (part.evenTimes ??= evenTimes(part.startMs, part.stepMs!, part.count));
      times.set(whole ? partTimes : partTimes.subarray(low, high), kept);
      kept += high - low;
    }
  }

  private factsOf(): { evenSpacing: number | undefined; neverFalls: boolean } {
    if (!this.facts) {
      // The spacing found so far (undefined: fewer than two samples yet); NaN once two differ.
      let spacing: number | undefined;
      const spaced = (gap: number) => (spacing = spacing === undefined || spacing === gap ? gap : NaN);
      let neverFalls = true;
      let before: { time: number; value: number } | undefined;
      for (const { part, low, high } of this.runs) {
        if (before) {
          spaced(timeAt(part, low) - before.time);
          if (part.values[low]! < before.value) neverFalls = false;
        }
        if (high - low > 1) spaced(spacingWithin(part, low, high));
        if (neverFalls && !runRises(part, low, high)) neverFalls = false;
        before = { time: timeAt(part, high - 1), value: part.values[high - 1]! };
      }
      this.facts = { evenSpacing: spacing === undefined || Number.isNaN(spacing) ? undefined : spacing, neverFalls };
    }
    return this.facts;
  }

  private joined(): { times: Float64Array; values: Float64Array } {
    if (!this.whole) {
      this.whole = { times: new Float64Array(this.sampleCount), values: new Float64Array(this.sampleCount) };
      this.readInto(this.whole.times, this.whole.values);
    }
    return this.whole;
  }
}

/**
 * The times of an evenly spaced chunk, made once per start, spacing and count: the sampler writes
 * every series at the same times, so a day of a thousand series' hourly chunks shares a few dozen
 * (not counted out again for each chunk a query copies). At most EVEN_TIMES_KEPT are remembered (~2 MB at 15 s).
 */
const evenTimesMade = new Map<string, Float64Array>();
const EVEN_TIMES_KEPT = 1_024;

function evenTimes(startMs: number, stepMs: number, count: number): Float64Array {
  const key = `${startMs} ${stepMs} ${count}`;
  let times = evenTimesMade.get(key);
  if (times === undefined) {
    // Chunks keep theirs: forgetting them all now and then only makes new ones for later chunks.
    if (evenTimesMade.size >= EVEN_TIMES_KEPT) evenTimesMade.clear();
    times = new Float64Array(count);
    for (let i = 0; i < count; i += 1) times[i] = startMs + i * stepMs;
    evenTimesMade.set(key, times);
  }
  return times;
}

/** The spacing of a part's times [low, high) (two or more) when it is one number, else NaN. */
function spacingWithin(part: DecodedChunk, low: number, high: number): number {
  if (part.times === null) return part.stepMs!;
  const spacing = part.times[low + 1]! - part.times[low]!;
  for (let i = low + 2; i < high; i += 1) if (part.times[i]! - part.times[i - 1]! !== spacing) return NaN;
  return spacing;
}

/** Whether no value of a part's run [low, high) is below the one before it: the whole part looked at once (kept with it), the run only when the part falls somewhere. */
function runRises(part: DecodedChunk, low: number, high: number): boolean {
  return (part.neverFalls ??= risesWithin(part.values, 0, part.values.length)) || risesWithin(part.values, low, high);
}

/** Whether no value of [low, high) is below the one before it. */
function risesWithin(values: Float64Array, low: number, high: number): boolean {
  for (let i = low + 1; i < high; i += 1) if (values[i]! < values[i - 1]!) return false;
  return true;
}

function timeAt(part: DecodedChunk, index: number): number {
  return part.times === null ? part.startMs + index * part.stepMs! : part.times[index]!;
}

/** Chunks by their start (listed by their end, they come in that order unless two overlap). */
function inStartOrder(chunks: DecodedChunk[]): DecodedChunk[] {
  for (let i = 1; i < chunks.length; i += 1) if (chunks[i]!.startMs < chunks[i - 1]!.startMs) return chunks.sort((a, b) => a.startMs - b.startMs);
  return chunks;
}

/** How many of a part's times are below `t` (with `orAt`, at or below it). */
function countBelow(part: DecodedChunk, t: number, orAt: boolean): number {
  let [low, high] = [0, part.count];
  while (low < high) {
    const middle = (low + high) >> 1;
    const time = timeAt(part, middle);
    if (time < t || (orAt && time === t)) low = middle + 1;
    else high = middle;
  }
  return low;
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

/** Doubles in base64 in an array of their own: a cached chunk must not keep a shared buffer alive. */
function ownDoubles(base64: string): Float64Array {
  return doubles(Buffer.from(base64, 'base64')).slice();
}
