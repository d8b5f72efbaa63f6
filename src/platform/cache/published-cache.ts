// An in-process cache of values read from one table, keyed by record (a dataset id, a template id),
// that never serves a value older than the record's last committed change beyond the delay of the
// change announcement (change-feed.ts): an announced change drops the record's value, and a value
// read while any change was announced is not kept (it may predate that change). While announcements
// are not received, nothing is cached. Values are frozen: one copy is shared by every request.
import type { Change, ChangeFeed } from './change-feed.js';

export interface PublishedCacheOptions {
  /** The table whose announced changes drop values (`datasets`, `query_templates`, ...). */
  table: string;
  /** Most values kept; the oldest go first. */
  maxEntries: number;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

export class PublishedCache<V> {
  private readonly entries = new Map<string, V>();
  /** Bumped by every drop: a read that began before it must not store what it read. */
  private epoch = 0;
  hits = 0;
  misses = 0;

  constructor(
    private readonly feed: Pick<ChangeFeed, 'listening' | 'subscribe' | 'announceLocally'>,
    private readonly options: PublishedCacheOptions,
  ) {
    feed.subscribe({
      change: (change: Change) => {
        if (change.table !== options.table) return;
        if (change.key === '*') this.clear();
        else this.drop(change.key);
      },
      reset: () => this.clear(),
    });
  }

  get size(): number {
    return this.entries.size;
  }

  /** The cached values of `keys`, and the keys that must be read; `store` keeps what was read. */
  lookup(keys: readonly string[]): { found: Map<string, V>; missing: string[]; store: (values: Map<string, V>) => void } {
    const found = new Map<string, V>();
    const missing: string[] = [];
    for (const key of keys) {
      const value = this.feed.listening ? this.entries.get(key) : undefined;
      if (value === undefined) missing.push(key);
      else found.set(key, value);
    }
    this.hits += found.size;
    this.misses += missing.length;
    const epoch = this.epoch;
    return {
      found,
      missing,
      store: (values) => {
        if (epoch !== this.epoch || !this.feed.listening) return;
        for (const [key, value] of values) this.set(key, deepFreeze(value));
      },
    };
  }

  /** The value of one key, read with `load` when it is not cached. */
  async get(key: string, load: () => Promise<V>): Promise<V> {
    const { found, store } = this.lookup([key]);
    const cached = found.get(key);
    if (cached !== undefined) return cached;
    const value = await load();
    store(new Map([[key, value]]));
    return value;
  }

  /**
   * A write of this process changed the record: every cache of its table in this process drops it
   * now (the database's announcement, after commit, does so in every gateway).
   */
  changed(key: string): void {
    this.feed.announceLocally({ table: this.options.table, key });
  }

  drop(key: string): void {
    this.epoch += 1;
    this.entries.delete(key);
  }

  clear(): void {
    this.epoch += 1;
    this.entries.clear();
  }

  private set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.options.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }
}
