// Decoded chunks kept in memory between queries. A dashboard asks for the same day of the same
// series every refresh, and reading a chunk's bytes out of PostgreSQL and decoding them costs
// far more than evaluating them. A chunk only changes by growing at its end (compaction appends
// the current hour's samples) or by going (retention), and every query still lists the chunks it
// needs from the database with their sample counts: a chunk cached with another count is fetched
// again. The cache only saves the fetch: it can hold a chunk too many, never a wrong one.

/** A chunk's samples: the values, and the times unless they are evenly spaced (then counted from the start). */
export interface DecodedChunk {
  startMs: number;
  count: number;
  stepMs: number | null;
  times: Float64Array | null;
  values: Float64Array;
  /** Evenly spaced, its times counted from the start: made on first read, shared by every chunk of the same start, spacing and count. */
  evenTimes?: Float64Array;
  /** Whether no value is below the one before (a counter without a reset): looked at once. */
  neverFalls?: boolean;
}

/** Bytes a cached chunk costs beyond its numbers: its entry, its places in the maps and the order, and two typed-array headers. */
const ENTRY_OVERHEAD_BYTES = 240;

/** A cached chunk, linked into the order of use: a hit is moved with a few assignments, not a Set's delete and add. */
interface Entry {
  seriesId: number;
  chunk: DecodedChunk;
  older: Entry | undefined;
  newer: Entry | undefined;
}

export class ChunkCache {
  /** The entries by series, then start: numbers as keys (a query looks up thousands of chunks: no string key built for each). */
  private readonly bySeries = new Map<number, Map<number, Entry>>();
  /** Least recently used first: the list's ends; a hit is moved to the newest end. */
  private oldest: Entry | undefined;
  private newest: Entry | undefined;
  private count = 0;
  private heldBytes = 0;

  constructor(readonly maxBytes: number) {}

  get bytes(): number {
    return this.heldBytes;
  }

  get size(): number {
    return this.count;
  }

  /** The chunk of `seriesId` starting at `startMs`, if cached with `count` samples (a different count is another chunk). */
  get(seriesId: number, startMs: number, count: number): DecodedChunk | undefined {
    const entry = this.bySeries.get(seriesId)?.get(startMs);
    if (entry === undefined) return undefined;
    if (entry.chunk.count !== count) {
      this.remove(entry);
      return undefined;
    }
    if (entry !== this.newest) {
      this.unlink(entry);
      this.append(entry);
    }
    return entry.chunk;
  }

  put(seriesId: number, chunk: DecodedChunk): void {
    const cost = costOf(chunk);
    if (cost > this.maxBytes) return;
    let starts = this.bySeries.get(seriesId);
    const before = starts?.get(chunk.startMs);
    if (before !== undefined) this.remove(before);
    if (starts === undefined || starts.size === 0) this.bySeries.set(seriesId, (starts = new Map<number, Entry>()));
    const entry: Entry = { seriesId, chunk, older: undefined, newer: undefined };
    starts.set(chunk.startMs, entry);
    this.append(entry);
    this.count += 1;
    this.heldBytes += cost;
    while (this.heldBytes > this.maxBytes && this.oldest !== undefined) this.remove(this.oldest);
  }

  /** Puts a linked-out entry at the newest end. */
  private append(entry: Entry): void {
    entry.older = this.newest;
    entry.newer = undefined;
    if (this.newest) this.newest.newer = entry;
    else this.oldest = entry;
    this.newest = entry;
  }

  private unlink(entry: Entry): void {
    if (entry.older) entry.older.newer = entry.newer;
    else this.oldest = entry.newer;
    if (entry.newer) entry.newer.older = entry.older;
    else this.newest = entry.older;
  }

  private remove(entry: Entry): void {
    const starts = this.bySeries.get(entry.seriesId)!;
    starts.delete(entry.chunk.startMs);
    if (starts.size === 0) this.bySeries.delete(entry.seriesId);
    this.unlink(entry);
    this.count -= 1;
    this.heldBytes -= costOf(entry.chunk);
  }
}

function costOf(chunk: DecodedChunk): number {
  return chunk.values.byteLength + (chunk.times?.byteLength ?? 0) + ENTRY_OVERHEAD_BYTES;
}
