// Resumable streams of changes: the change log of datasets (the table dataset_changes, written by a
// trigger in the changing transaction, ids in commit order: see its migration), read from a cursor.
// A stream reads every row after its position, a page of at most `first` at a time, then waits for
// the next committed change to datasets (the announcements every copy hears) and reads again from
// where it is. Replay and tail are one read ("id > position"), so no row comes twice or out of order,
// whichever copy of the gateway made the change.
import type pg from 'pg';
import { GatewayError } from '../../errors.js';

export type ChangeRecordKind = 'CREATED' | 'UPDATED' | 'STATUS_CHANGED' | 'DELETED';

export interface DatasetChangeRecord {
  id: bigint;
  datasetId: string;
  /** The row that changed: 'live' or 'draft'. */
  stage: string;
  kind: ChangeRecordKind;
  statusBefore: string | null;
  statusAfter: string | null;
  version: number | null;
  /** The row's updated_by (created_by for a creation). */
  actor: string | null;
  at: Date;
}

/** One message of a stream: changes in commit order, and the position after them. */
export interface ChangePage {
  changes: DatasetChangeRecord[];
  /** Where to resume (the last change's position, or the stream's position when the page is empty). */
  position: bigint;
  /** Whether the page reached the end of the log as it was when read. */
  caughtUp: boolean;
}

const CURSOR_PREFIX = 'dc:';
const LOG = 'dataset_changes';
/** Largest page a caller may ask for; also what a page holds when `first` is omitted. */
export const MAX_CHANGE_PAGE = 500;
export const DEFAULT_CHANGE_PAGE = 100;

/** The opaque cursor of a position in the change log of datasets. */
export function changeCursor(position: bigint): string {
  return Buffer.from(`${CURSOR_PREFIX}${position}`, 'utf8').toString('base64url');
}

/** The position a cursor stands for; CHANGE_CURSOR_INVALID naming what is wrong when the text is not a cursor of this stream. */
export function positionOf(cursor: string): bigint {
  const refuse = () =>
    new GatewayError(
      'CHANGE_CURSOR_INVALID',
      `after: ${JSON.stringify(cursor.slice(0, 60))} is not a cursor of datasetChanges; pass the cursor (or endCursor) of a change this stream sent, or omit after`,
    );
  if (!/^[A-Za-z0-9_-]{1,40}$/.test(cursor)) throw refuse();
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const digits = text.startsWith(CURSOR_PREFIX) ? text.slice(CURSOR_PREFIX.length) : '';
  if (!/^(0|[1-9][0-9]{0,18})$/.test(digits)) throw refuse();
  return BigInt(digits);
}

interface ChangeRow {
  id: string;
  dataset_id: string;
  stage: string;
  kind: ChangeRecordKind;
  status_before: string | null;
  status_after: string | null;
  version: number | null;
  actor: string | null;
  at: Date;
}

export interface ChangeLogBounds {
  /** The newest change's position (0 when none was ever kept). */
  newest: bigint;
  /** The newest position retention deleted (0 when none). */
  deletedThrough: bigint;
  /** When the oldest change kept was made (null when none is kept). */
  oldestAt: Date | null;
}

export function createChangeLogStore(pool: pg.Pool) {
  return {
    /** At most `limit` changes after `position`, oldest first. */
    async after(position: bigint, limit: number): Promise<DatasetChangeRecord[]> {
      const { rows } = await pool.query<ChangeRow>(
        `SELECT "id", "dataset_id", "stage", "kind", "status_before", "status_after", "version", "actor", "at"
           FROM "dataset_changes" WHERE "id" > $1 ORDER BY "id" LIMIT $2`,
        [position.toString(), limit],
      );
      return rows.map((row) => ({
        id: BigInt(row.id),
        datasetId: row.dataset_id,
        stage: row.stage,
        kind: row.kind,
        statusBefore: row.status_before,
        statusAfter: row.status_after,
        version: row.version,
        actor: row.actor,
        at: row.at,
      }));
    },

    async bounds(): Promise<ChangeLogBounds> {
      const { rows } = await pool.query<{ newest: string | null; oldest_at: Date | null; deleted_through: string | null }>(
        `SELECT (SELECT max("id") FROM "dataset_changes") AS newest,
                (SELECT "at" FROM "dataset_changes" ORDER BY "id" LIMIT 1) AS oldest_at,
                (SELECT "deleted_through" FROM "change_log_horizons" WHERE "log" = $1) AS deleted_through`,
        [LOG],
      );
      const row = rows[0]!;
      const deletedThrough = BigInt(row.deleted_through ?? 0);
      const newest = BigInt(row.newest ?? 0);
      return { newest: newest > deletedThrough ? newest : deletedThrough, deletedThrough, oldestAt: row.oldest_at };
    },

    /** Deletes the changes made before `cutoff` and moves the horizon past them, in one statement; how many went. */
    async deleteBefore(cutoff: Date): Promise<number> {
      const { rows } = await pool.query<{ deleted: string }>(
        `WITH gone AS (DELETE FROM "dataset_changes" WHERE "at" < $1 RETURNING "id"),
              moved AS (
                INSERT INTO "change_log_horizons" ("log", "deleted_through", "updated_at")
                SELECT $2, max("id"), now() FROM gone HAVING max("id") IS NOT NULL
                ON CONFLICT ("log") DO UPDATE SET "deleted_through" = GREATEST("change_log_horizons"."deleted_through", EXCLUDED."deleted_through"), "updated_at" = now()
              )
         SELECT count(*) AS deleted FROM gone`,
        [cutoff, LOG],
      );
      return Number(rows[0]?.deleted ?? 0);
    },
  };
}

export type ChangeLogStore = ReturnType<typeof createChangeLogStore>;

function hoursAgo(at: Date, now: number): string {
  const hours = (now - at.getTime()) / 3_600_000;
  return hours >= 1 ? `${hours.toFixed(1)} h ago` : `${Math.max(0, Math.round(hours * 60))} min ago`;
}

/**
 * The position a stream starts after: the cursor's, checked against the log (a cursor retention has
 * passed is CHANGE_CURSOR_EXPIRED, saying how old the oldest kept change is and what to do; one past
 * the newest change is not a cursor this log gave), or the newest change's when there is none.
 */
export async function startingPosition(store: ChangeLogStore, after: string | null | undefined, retentionHours: number, now = Date.now()): Promise<bigint> {
  const position = after === null || after === undefined ? null : positionOf(after);
  const bounds = await store.bounds();
  if (position === null) return bounds.newest;
  if (position < bounds.deletedThrough) {
    const oldest = bounds.oldestAt ? `the oldest change kept is from ${bounds.oldestAt.toISOString()} (${hoursAgo(bounds.oldestAt, now)})` : 'no change is kept now';
    throw new GatewayError(
      'CHANGE_CURSOR_EXPIRED',
      `after: the cursor is older than the change log keeps (CHANGE_LOG_RETENTION_HOURS=${retentionHours}); ${oldest}, so changes after the cursor are gone. Read the datasets again, then subscribe without after (the first message's endCursor is where to resume from later).`,
    );
  }
  if (position > bounds.newest) {
    throw new GatewayError('CHANGE_CURSOR_INVALID', `after: the cursor is past the newest change of datasetChanges; pass a cursor this stream sent (on this database), or omit after`);
  }
  return position;
}

/**
 * One subscriber's stream of pages: the first page at once (empty when nothing came after the
 * position, so the client learns where it stands), then one page whenever changes were committed,
 * pages of `first` back to back until the log is read to its end. Pulled by its transport: the next
 * page is read only when the last one was taken.
 */
export class ChangeLogStream implements AsyncIterableIterator<ChangePage> {
  private started = false;
  /** Whether changes may have come since the last reading (set before a reading starts, so one announced during it reads again). */
  private unread = true;
  private closed = false;
  private wake: (() => void) | undefined;

  constructor(
    private readonly store: Pick<ChangeLogStore, 'after'>,
    private position: bigint,
    private readonly first: number,
    private readonly onClose: () => void,
  ) {}

  /** A change to datasets was committed (or may have been: the announcements reconnected). */
  changed(): void {
    this.unread = true;
    this.wake?.();
  }

  async next(): Promise<IteratorResult<ChangePage>> {
    for (;;) {
      if (this.closed) return { value: undefined, done: true };
      if (!this.unread && this.started) {
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = undefined;
        continue;
      }
      this.unread = false;
      const changes = await this.store.after(this.position, this.first);
      if (this.closed) return { value: undefined, done: true };
      const caughtUp = changes.length < this.first;
      if (!caughtUp) this.unread = true;
      if (changes.length === 0 && this.started) continue;
      this.started = true;
      if (changes.length > 0) this.position = changes[changes.length - 1]!.id;
      return { value: { changes, position: this.position, caughtUp }, done: false };
    }
  }

  return(): Promise<IteratorResult<ChangePage>> {
    if (!this.closed) {
      this.closed = true;
      this.wake?.();
      this.onClose();
    }
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<ChangePage> {
    return this;
  }
}
