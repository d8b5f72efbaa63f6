// Verified credentials kept for their lifetime: each entry has its own end (a JWT's `exp`, an API
// key's expiry), the number of entries is bounded, and the least recently used goes first when a
// new one needs room, so a flood of distinct credentials cannot push out the callers in use.
export class LruCache<K, V> {
  // A Map iterates in insertion order; a hit re-inserts its entry, so the first key is the least recently used.
  private readonly entries = new Map<K, { value: V; until: number }>();

  constructor(private readonly maxEntries: number) {}

  /** The value while its end (epoch ms) is ahead of `now`; an ended entry is dropped. */
  get(key: K, now = Date.now()): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.until <= now) return undefined;
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Keeps `value` until `until` (epoch ms; Infinity: until dropped). */
  set(key: K, value: V, until: number): void {
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, { value, until });
  }

  /** Drops every entry `matches` picks. */
  deleteWhere(matches: (value: V) => boolean): void {
    for (const [key, entry] of this.entries) if (matches(entry.value)) this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
