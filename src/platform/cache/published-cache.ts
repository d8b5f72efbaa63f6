// The one in-process cache of published reads: records a store read (a dataset id, a template id)
// and whole answers (a GraphQL query's data, a REST entry's result), each kept with what it is made
// of, declared once: tables (any change to one drops it), or one record of a table (a change to
// that record, or to the whole table, drops it). Changes are the database's announcements of
// committed changes (change-feed.ts: LISTEN gateway_changes), and this process's own writes
// announced locally before them. A value read while a change to what it is made of was announced is
// not kept (it may predate that change), so nothing is served older than its last committed change
// beyond the announcement's delay. While announcements are not received, nothing is served or kept.
// A value may also be made of figures no table announces (counters bumped by every ingest call,
// health probes): it is then kept for a bounded time at most, counted from when its read began.
// Values are frozen: one copy is shared by every request.
import type { Change, ChangeFeed } from './change-feed.js';
import { afterOperationCommit, insideBegunTransaction } from '../database/operation-transaction.js';

/** What a kept value is made of: every record of `tables`, or only the record `record` of them. */
export interface MadeOf {
  tables: readonly string[];
  record?: string;
  /** Kept this long at most (ms since its read began), when it is also made of figures no change announces. */
  maxAgeMs?: number;
}

/** Where the changes to what a read is made of stood when the read began (see `since`). */
export interface ReadStart {
  readonly resets: number;
  readonly versions: readonly number[];
  /** When the read began (performance.now(): a clock that never jumps). */
  readonly at: number;
}

interface Entry<V> {
  part: CachePart<V>;
  key: string;
  value: V;
  madeOf: MadeOf;
  /** performance.now() after which it is not served (made of figures kept for a bounded time). */
  expiresAt?: number;
}

/** The entries that depend on a table: on any of its records, or on one record. */
interface TableDependents {
  whole: Set<Entry<unknown>>;
  records: Map<string, Set<Entry<unknown>>>;
}

/** Most records whose last change is remembered (one number each) before they are forgotten at once. */
const MAX_CHANGED_RECORDS = 100_000;

function deepFreeze<T>(value: T): T {
  // Prepared bytes (a Buffer) cannot be frozen; nothing writes to them once kept.
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value) && !ArrayBuffer.isView(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

export class PublishedCache {
  private readonly parts: CachePart<unknown>[] = [];
  private readonly dependents = new Map<string, TableDependents>();
  /** Per table, bumped by every change to it: a read that began before must not keep what it read. */
  private readonly versions = new Map<string, number>();
  /**
   * Per table, its version at the last change to every record of it; and per table and record, the
   * table's version at that record's last change. A read of one record keeps what it read when only
   * other records changed meanwhile (a write every 100 ms to some dataset must not keep every other
   * dataset's first read from being kept).
   */
  private readonly wholeTableChanged = new Map<string, number>();
  private readonly recordChanged = new Map<string, number>();
  private resets = 0;

  constructor(private readonly feed: Pick<ChangeFeed, 'listening' | 'subscribe' | 'announceLocally'>) {
    feed.subscribe({ change: (change) => this.changed(change), reset: () => this.reset() });
  }

  /** False while announcements are not received: nothing is served or kept then. */
  get listening(): boolean {
    return this.feed.listening;
  }

  /** A part of the cache for one kind of value, with its own bound (the oldest entries go first). */
  part<V>(name: string, maxEntries: number): CachePart<V> {
    const part = new CachePart<V>(this, name, maxEntries);
    this.parts.push(part);
    return part;
  }

  /** Records of one table by key, for a store: its writes drop them at once (`changed`). */
  records<V>(table: string, maxEntries: number): RecordCache<V> {
    return new RecordCache<V>(this, this.part<V>(`records of ${table}`, maxEntries), table);
  }

  /** To hand to `keep` once the read is done: it keeps the value only if nothing it is made of changed meanwhile. */
  since(tables: readonly string[]): ReadStart {
    return { resets: this.resets, versions: tables.map((table) => this.versions.get(table) ?? 0), at: performance.now() };
  }

  /**
   * A change of this process: every part drops what it made of now, and again once the operation's
   * transaction commits (a read in between got the value before the change); the database's
   * announcement, after commit, does so in every gateway.
   */
  announce(change: Change): void {
    this.feed.announceLocally(change);
    afterOperationCommit(() => this.feed.announceLocally(change));
  }

  /** @internal Whether a read begun at `start`, of what `tables` holds (only their record `record`, when given), may be kept. */
  unchangedSince(tables: readonly string[], start: ReadStart, record?: string): boolean {
    // What an operation's open transaction reads may be its own uncommitted writes.
    if (!this.feed.listening || start.resets !== this.resets || insideBegunTransaction()) return false;
    return tables.every((table, index) => {
      const then = start.versions[index] ?? 0;
      if ((this.versions.get(table) ?? 0) === then) return true;
      return record !== undefined && (this.wholeTableChanged.get(table) ?? 0) <= then && (this.recordChanged.get(`${table}\u0000${record}`) ?? 0) <= then;
    });
  }

  /** @internal */
  index(entry: Entry<unknown>): void {
    for (const table of entry.madeOf.tables) {
      let dependents = this.dependents.get(table);
      if (!dependents) this.dependents.set(table, (dependents = { whole: new Set(), records: new Map() }));
      if (entry.madeOf.record === undefined) dependents.whole.add(entry);
      else {
        let ofRecord = dependents.records.get(entry.madeOf.record);
        if (!ofRecord) dependents.records.set(entry.madeOf.record, (ofRecord = new Set()));
        ofRecord.add(entry);
      }
    }
  }

  /** @internal */
  unindex(entry: Entry<unknown>): void {
    for (const table of entry.madeOf.tables) {
      const dependents = this.dependents.get(table);
      if (!dependents) continue;
      if (entry.madeOf.record === undefined) dependents.whole.delete(entry);
      else {
        const ofRecord = dependents.records.get(entry.madeOf.record);
        ofRecord?.delete(entry);
        if (ofRecord?.size === 0) dependents.records.delete(entry.madeOf.record);
      }
    }
  }

  private changed(change: Change): void {
    const version = (this.versions.get(change.table) ?? 0) + 1;
    this.versions.set(change.table, version);
    if (change.key === '*') this.wholeTableChanged.set(change.table, version);
    else {
      this.recordChanged.set(`${change.table}\u0000${change.key}`, version);
      // Bounded: past it, forgotten records count as changed now, as if every record of every table had changed.
      if (this.recordChanged.size > MAX_CHANGED_RECORDS) {
        this.recordChanged.clear();
        for (const [table, current] of this.versions) this.wholeTableChanged.set(table, current);
      }
    }
    const dependents = this.dependents.get(change.table);
    if (!dependents) return;
    const dropped = [...dependents.whole];
    if (change.key === '*') for (const ofRecord of dependents.records.values()) dropped.push(...ofRecord);
    else dropped.push(...(dependents.records.get(change.key) ?? []));
    for (const entry of dropped) entry.part.remove(entry.key);
  }

  private reset(): void {
    this.resets += 1;
    for (const part of this.parts) part.clear();
    this.dependents.clear();
  }
}

/** The values of one kind (a store's records, GraphQL answers, one REST entry's results), keyed as their user likes. */
export class CachePart<V> {
  private readonly entries = new Map<string, Entry<V>>();
  hits = 0;
  misses = 0;

  constructor(
    private readonly cache: PublishedCache,
    readonly name: string,
    private readonly maxEntries: number,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: string): V | undefined {
    let entry = this.cache.listening ? this.entries.get(key) : undefined;
    if (entry?.expiresAt !== undefined && entry.expiresAt <= performance.now()) {
      this.remove(key);
      entry = undefined;
    }
    const value = entry?.value;
    if (value === undefined) this.misses += 1;
    else this.hits += 1;
    return value;
  }

  /** To hand to `keep` once the read of what `tables` hold is done (PublishedCache.since). */
  since(tables: readonly string[]): ReadStart {
    return this.cache.since(tables);
  }

  /** Keeps `value`, read since `start`, unless something it is made of changed meanwhile (a kept value is frozen). */
  keep(key: string, value: V, madeOf: MadeOf, start: ReadStart): void {
    if (!this.cache.unchangedSince(madeOf.tables, start, madeOf.record)) return;
    if (madeOf.maxAgeMs !== undefined && start.at + madeOf.maxAgeMs <= performance.now()) return;
    const frozen = deepFreeze(value);
    this.remove(key);
    const entry: Entry<V> = { part: this, key, value: frozen, madeOf };
    if (madeOf.maxAgeMs !== undefined) entry.expiresAt = start.at + madeOf.maxAgeMs;
    this.entries.set(key, entry);
    this.cache.index(entry);
    if (this.entries.size > this.maxEntries) this.remove(this.entries.keys().next().value!);
  }

  /** @internal */
  remove(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.cache.unindex(entry);
  }

  /** @internal */
  clear(): void {
    this.entries.clear();
  }
}

/** A store's view: records of one table by key, each made of that record alone. */
export class RecordCache<V> {
  constructor(
    private readonly cache: PublishedCache,
    private readonly part: CachePart<V>,
    private readonly table: string,
  ) {}

  get size(): number {
    return this.part.size;
  }

  get hits(): number {
    return this.part.hits;
  }

  get misses(): number {
    return this.part.misses;
  }

  /** The cached values of `keys`, and the keys that must be read; `store` keeps what was read. */
  lookup(keys: readonly string[]): { found: Map<string, V>; missing: string[]; store: (values: Map<string, V>) => void } {
    const found = new Map<string, V>();
    const missing: string[] = [];
    // An operation's open transaction reads its own writes, never a copy kept before them.
    if (insideBegunTransaction()) return { found, missing: [...keys], store: () => undefined };
    for (const key of keys) {
      const value = this.part.get(key);
      if (value === undefined) missing.push(key);
      else found.set(key, value);
    }
    const tables = [this.table];
    const start = this.cache.since(tables);
    return {
      found,
      missing,
      store: (values) => {
        for (const [key, value] of values) this.part.keep(key, value, { tables, record: key }, start);
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

  /** A write of this process changed the record: what is made of it is dropped now, in every part. */
  changed(key: string): void {
    this.cache.announce({ table: this.table, key });
  }
}
