// One reader of a change log's new changes per gateway, whatever the number of its subscribers. The
// tail reads each batch of changes committed after its position once, when the log is announced, and
// hands the batch to every member (the same array, never copied). A subscriber resuming from an older
// cursor joins the tail first (from then on it is handed every change the tail reads) and reads the
// changes between its cursor and the tail's position on its own, a page at a time; what it was handed
// meanwhile and had already read is dropped (every change after a position is the same set whoever
// reads it: ids follow commit order). No gap, no change twice. A member that falls behind (more than
// MEMBER_BACKLOG changes handed and not yet taken by its transport) leaves the tail, drops what it
// was handed, and reads on from its own position the same way, joining again: memory stays bounded
// for a slow client, and the others never wait for it.
import type { Logger } from '../../logger.js';
import { MAX_CHANGE_PAGE, type ChangeLogStore, type ChangePage, type LoggedChange } from './change-log.js';

/** Most changes the tail reads at once. */
const TAIL_BATCH = MAX_CHANGE_PAGE;
/** Changes a member may hold, handed and not yet sent, before it leaves the tail and reads on its own. */
export const MEMBER_BACKLOG = 4 * TAIL_BATCH;
/** How soon a tail whose reading failed (the database away) tries again. */
const RETRY_MS = 1_000;

export class ChangeLogTail<R extends LoggedChange> {
  /** Every change up to here has been handed to the members (meaningful while there is one). */
  private position = 0n;
  private readonly members = new Set<ChangeLogStream<R>>();
  private unread = false;
  private reading: Promise<void> | undefined;
  private retry: NodeJS.Timeout | undefined;
  /** Whether the last reading reached the end of the log as it was then. */
  caughtUp = true;
  /** Readings this tail made: one per batch of new changes, whatever the number of members. */
  reads = 0;

  constructor(
    private readonly store: Pick<ChangeLogStore<R>, 'after' | 'spec'>,
    private readonly logger: Logger,
  ) {}

  /** Subscribers handed the tail's changes now. */
  get size(): number {
    return this.members.size;
  }

  /** The log was announced (or may have changed unheard: the announcements reconnected). */
  changed(): void {
    if (this.members.size === 0) return;
    this.unread = true;
    this.reading ??= this.read();
  }

  /**
   * Makes `stream` a member, handed every change read from now on, and gives the tail's position: the
   * stream reads on its own whatever it lacks up to there. A tail without members starts at
   * `committedThrough` (every change up to it is committed) and reads at once: a change announced
   * while nobody was a member was not read.
   */
  join(stream: ChangeLogStream<R>, committedThrough: bigint): bigint {
    const idle = this.members.size === 0;
    if (idle) this.position = committedThrough;
    this.members.add(stream);
    if (idle) this.changed();
    return this.position;
  }

  leave(stream: ChangeLogStream<R>): void {
    this.members.delete(stream);
    if (this.members.size === 0 && this.retry) {
      clearTimeout(this.retry);
      this.retry = undefined;
    }
  }

  private async read(): Promise<void> {
    try {
      while (this.unread && this.members.size > 0) {
        this.unread = false;
        const from = this.position;
        this.reads += 1;
        const changes = await this.store.after(from, TAIL_BATCH);
        // Every member left and a new one restarted the tail elsewhere meanwhile: that one's reading counts (it set unread).
        if (this.position !== from) continue;
        this.caughtUp = changes.length < TAIL_BATCH;
        if (!this.caughtUp) this.unread = true;
        if (changes.length === 0) continue;
        this.position = changes[changes.length - 1]!.id;
        for (const member of [...this.members]) member.handed(changes);
      }
    } catch (error) {
      this.logger.warn({ err: error, stream: this.store.spec.field }, `live: the change log of ${this.store.spec.field} could not be read; trying again in ${RETRY_MS} ms`);
      this.unread = true;
      this.retry ??= setTimeout(() => {
        this.retry = undefined;
        this.changed();
      }, RETRY_MS);
      this.retry.unref();
    } finally {
      this.reading = undefined;
    }
  }
}

/**
 * One subscriber's stream of pages: the first page at once (empty when nothing came after the
 * position, so the client learns where it stands), then a page whenever changes were committed, pages
 * of `first` back to back until it has sent everything. Pulled by its transport: a page is made only
 * when the last one was taken.
 */
export class ChangeLogStream<R extends LoggedChange> implements AsyncIterableIterator<ChangePage<R>> {
  private started = false;
  private closed = false;
  private member = false;
  /** The tail's batches handed and not yet sent (the first from `offset` on), `heldCount` changes in all. */
  private held: R[][] = [];
  private offset = 0;
  private heldCount = 0;
  /** While set, the stream reads on its own up to this position (the tail's when it joined); the tail's changes after it wait. */
  private catchUpTo: bigint | undefined;
  private wake: (() => void) | undefined;

  constructor(
    private readonly store: Pick<ChangeLogStore<R>, 'after'>,
    private readonly tail: ChangeLogTail<R>,
    private position: bigint,
    /** A position up to which every change is committed (the log's newest when the stream started). */
    committedThrough: bigint,
    private readonly first: number,
  ) {
    this.join(committedThrough);
  }

  private join(committedThrough: bigint): void {
    const tailAt = this.tail.join(this, committedThrough);
    this.member = true;
    this.catchUpTo = tailAt > this.position ? tailAt : undefined;
  }

  /** The tail read these changes, the next ones after the tail's previous position. */
  handed(changes: R[]): void {
    if (this.closed || !this.member) return;
    this.held.push(changes);
    this.heldCount += changes.length;
    if (this.heldCount > MEMBER_BACKLOG) {
      // Its client does not keep up: it reads on from its own position instead (nothing is lost).
      this.tail.leave(this);
      this.member = false;
      this.catchUpTo = undefined;
      this.held = [];
      this.offset = 0;
      this.heldCount = 0;
    }
    this.wake?.();
  }

  /** Up to `first` held changes after the stream's position, in order. */
  private takeHeld(): R[] {
    const page: R[] = [];
    while (page.length < this.first && this.held.length > 0) {
      const batch = this.held[0]!;
      while (this.offset < batch.length && page.length < this.first) {
        const change = batch[this.offset]!;
        this.offset += 1;
        this.heldCount -= 1;
        if (change.id > this.position) page.push(change);
      }
      if (this.offset >= batch.length) {
        this.held.shift();
        this.offset = 0;
      }
    }
    return page;
  }

  async next(): Promise<IteratorResult<ChangePage<R>>> {
    for (;;) {
      if (this.closed) return { value: undefined, done: true };
      // Left the tail (fell behind): joins again, then reads on its own up to where the tail is.
      if (!this.member) this.join(this.position);
      if (this.catchUpTo !== undefined) {
        const changes = await this.store.after(this.position, this.first);
        if (this.closed) return { value: undefined, done: true };
        const reachedEnd = changes.length < this.first;
        if (changes.length > 0) this.position = changes[changes.length - 1]!.id;
        // Caught up with the tail: everything up to its position is read (a short page read them all, as they were committed by then).
        if (this.catchUpTo !== undefined && (reachedEnd || this.position >= this.catchUpTo)) {
          if (this.position < this.catchUpTo) this.position = this.catchUpTo;
          this.catchUpTo = undefined;
        }
        if (changes.length === 0 && this.started) continue;
        this.started = true;
        return { value: { changes, position: this.position, caughtUp: reachedEnd && this.catchUpTo === undefined && this.heldCount === 0 && this.tail.caughtUp }, done: false };
      }
      const changes = this.takeHeld();
      if (changes.length > 0 || !this.started) {
        this.started = true;
        if (changes.length > 0) this.position = changes[changes.length - 1]!.id;
        return { value: { changes, position: this.position, caughtUp: this.heldCount === 0 && this.tail.caughtUp }, done: false };
      }
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }

  return(): Promise<IteratorResult<ChangePage<R>>> {
    if (!this.closed) {
      this.closed = true;
      this.tail.leave(this);
      this.held = [];
      this.heldCount = 0;
      this.wake?.();
    }
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<ChangePage<R>> {
    return this;
  }
}
