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
}

/** Bytes a cached chunk costs beyond its numbers: the entry, its key and two typed-array headers. */
const ENTRY_OVERHEAD_BYTES = 240;

export class ChunkCache {
  /** Least recently used first: a Map keeps insertion order, and a hit is moved to the end. */
  private readonly entries = new Map<string, DecodedChunk>();
  private heldBytes = 0;

  constructor(readonly maxBytes: number) {}

  get bytes(): number {
    return this.heldBytes;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The chunk of `seriesId` starting at `startMs`, if cached with `count` samples (a different count is another chunk). */
  get(seriesId: number, startMs: number, count: number): DecodedChunk | undefined {
    const key = keyOf(seriesId, startMs);
    const chunk = this.entries.get(key);
    if (chunk === undefined) return undefined;
    this.entries.delete(key);
    if (chunk.count !== count) {
      this.heldBytes -= costOf(chunk);
      return undefined;
    }
    this.entries.set(key, chunk);
    return chunk;
  }

  put(seriesId: number, chunk: DecodedChunk): void {
    const cost = costOf(chunk);
    if (cost > this.maxBytes) return;
    const key = keyOf(seriesId, chunk.startMs);
    const before = this.entries.get(key);
    if (before !== undefined) {
      this.entries.delete(key);
      this.heldBytes -= costOf(before);
    }
    this.entries.set(key, chunk);
    this.heldBytes += cost;
    for (const [oldest, evicted] of this.entries) {
      if (this.heldBytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.heldBytes -= costOf(evicted);
    }
  }
}

function keyOf(seriesId: number, startMs: number): string {
  return `${seriesId}:${startMs}`;
}

function costOf(chunk: DecodedChunk): number {
  return chunk.values.byteLength + (chunk.times?.byteLength ?? 0) + ENTRY_OVERHEAD_BYTES;
}
