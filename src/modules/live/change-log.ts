// Resumable streams of changes. Each stream reads its own change log: a table written by a trigger in
// the changing transaction, ids in commit order (see the migrations dataset_change_log and
// alert_and_audit_change_logs). One module serves every log; a log is described once (its table, its
// columns, its cursor's prefix: change-logs.ts), and everything else is the same for all: the opaque
// cursor, the store (a page after a position, the bounds, retention), where a stream starts and why a
// cursor is refused. The shared tail reader and each subscriber's stream are in change-tail.ts.
import type pg from 'pg';
import { GatewayError } from '../../errors.js';

/** A row of a change log as its stream hands it on: its position and what it records. */
export interface LoggedChange {
  id: bigint;
}

/** One change log, described once. */
export interface ChangeLogSpec<R extends LoggedChange> {
  /** The subscription field that streams it (named in refusals). */
  field: string;
  /** Its table. */
  table: string;
  /** Tables whose announcement (gateway_changes "<table>:<key>") may mean a new row in the log. */
  announcedBy: readonly string[];
  /** Written into its cursors, so that a cursor of one stream is refused by another. */
  cursorPrefix: string;
  /** The columns a page selects (an expression list of the table's columns, `id` first). */
  columns: string;
  toChange(row: Record<string, unknown>): R;
  /** What a client whose cursor expired reads again before it subscribes afresh ("the datasets"). */
  currentState: string;
}

/** One message of a stream: changes in commit order, and the position after them. */
export interface ChangePage<R extends LoggedChange = LoggedChange> {
  changes: R[];
  /** Where to resume (the last change's position, or the stream's position when the page is empty). */
  position: bigint;
  /** Whether the page reached the end of the log as it was when read. */
  caughtUp: boolean;
}

/** Largest page a caller may ask for; also what a page holds when `first` is omitted. */
export const MAX_CHANGE_PAGE = 500;
export const DEFAULT_CHANGE_PAGE = 100;

/** The opaque cursor of a position in a change log. */
export function changeCursor(spec: Pick<ChangeLogSpec<LoggedChange>, 'cursorPrefix'>, position: bigint): string {
  return Buffer.from(`${spec.cursorPrefix}${position}`, 'utf8').toString('base64url');
}

/** The position a cursor stands for; CHANGE_CURSOR_INVALID naming what is wrong when the text is not a cursor of this stream. */
export function positionOf(spec: Pick<ChangeLogSpec<LoggedChange>, 'cursorPrefix' | 'field'>, cursor: string): bigint {
  const refuse = () =>
    new GatewayError(
      'CHANGE_CURSOR_INVALID',
      `after: ${JSON.stringify(cursor.slice(0, 60))} is not a cursor of ${spec.field}; pass the cursor (or endCursor) of a change this stream sent, or omit after`,
    );
  if (!/^[A-Za-z0-9_-]{1,40}$/.test(cursor)) throw refuse();
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const digits = text.startsWith(spec.cursorPrefix) ? text.slice(spec.cursorPrefix.length) : '';
  if (!/^(0|[1-9][0-9]{0,18})$/.test(digits)) throw refuse();
  return BigInt(digits);
}

export interface ChangeLogBounds {
  /** The newest change's position (0 when none was ever kept). */
  newest: bigint;
  /** The newest position retention deleted (0 when none). */
  deletedThrough: bigint;
  /** When the oldest change kept was made (null when none is kept). */
  oldestAt: Date | null;
}

/** `retentionHours`: CHANGE_LOG_RETENTION_HOURS, named when a cursor is older than the log keeps. */
export function createChangeLogStore<R extends LoggedChange>(pool: pg.Pool, spec: ChangeLogSpec<R>, retentionHours: number) {
  // The table name comes from the specs in change-logs.ts, never from a caller.
  const table = `"${spec.table}"`;
  return {
    spec,
    retentionHours,

    /**
     * At most `limit` changes after `position`, oldest first. Read in one statement with the horizon of
     * retention, so a deletion can never slip between a check and the read: when retention has passed
     * `position`, the changes after it are not all there, and the reader is told (CHANGE_CURSOR_EXPIRED)
     * instead of being handed a page with a gap.
     */
    async after(position: bigint, limit: number): Promise<R[]> {
      const { rows } = await pool.query<Record<string, unknown> & { deleted_through: string }>(
        `SELECT horizon."deleted_through", page.*
           FROM (SELECT COALESCE((SELECT "deleted_through" FROM "change_log_horizons" WHERE "log" = $3), 0) AS "deleted_through") AS horizon
           LEFT JOIN LATERAL (SELECT ${spec.columns} FROM ${table} WHERE "id" > $1 ORDER BY "id" LIMIT $2) AS page ON true`,
        [position.toString(), limit, spec.table],
      );
      if (position < BigInt(rows[0]?.deleted_through ?? 0)) throw expiredCursor(spec, retentionHours, (await this.bounds()).oldestAt);
      return rows.filter((row) => row.id !== null).map((row) => spec.toChange(row));
    },

    async bounds(): Promise<ChangeLogBounds> {
      const { rows } = await pool.query<{ newest: string | null; oldest_at: Date | null; deleted_through: string | null }>(
        `SELECT (SELECT max("id") FROM ${table}) AS newest,
                (SELECT "at" FROM ${table} ORDER BY "id" LIMIT 1) AS oldest_at,
                (SELECT "deleted_through" FROM "change_log_horizons" WHERE "log" = $1) AS deleted_through`,
        [spec.table],
      );
      const row = rows[0]!;
      const deletedThrough = BigInt(row.deleted_through ?? 0);
      const newest = BigInt(row.newest ?? 0);
      return { newest: newest > deletedThrough ? newest : deletedThrough, deletedThrough, oldestAt: row.oldest_at };
    },

    /** Deletes the changes made before `cutoff` and moves the horizon past them, in one statement; how many went. */
    async deleteBefore(cutoff: Date): Promise<number> {
      const { rows } = await pool.query<{ deleted: string }>(
        `WITH gone AS (DELETE FROM ${table} WHERE "at" < $1 RETURNING "id"),
              moved AS (
                INSERT INTO "change_log_horizons" ("log", "deleted_through", "updated_at")
                SELECT $2, max("id"), now() FROM gone HAVING max("id") IS NOT NULL
                ON CONFLICT ("log") DO UPDATE SET "deleted_through" = GREATEST("change_log_horizons"."deleted_through", EXCLUDED."deleted_through"), "updated_at" = now()
              )
         SELECT count(*) AS deleted FROM gone`,
        [cutoff, spec.table],
      );
      return Number(rows[0]?.deleted ?? 0);
    },
  };
}

export type ChangeLogStore<R extends LoggedChange = LoggedChange> = ReturnType<typeof createChangeLogStore<R>>;

function hoursAgo(at: Date, now: number): string {
  const hours = (now - at.getTime()) / 3_600_000;
  return hours >= 1 ? `${hours.toFixed(1)} h ago` : `${Math.max(0, Math.round(hours * 60))} min ago`;
}

/** A cursor retention has passed: how old the oldest kept change is, and what to do. */
function expiredCursor(spec: Pick<ChangeLogSpec<LoggedChange>, 'currentState'>, retentionHours: number, oldestAt: Date | null, now = Date.now()): GatewayError {
  const oldest = oldestAt ? `the oldest change kept is from ${oldestAt.toISOString()} (${hoursAgo(oldestAt, now)})` : 'no change is kept now';
  return new GatewayError(
    'CHANGE_CURSOR_EXPIRED',
    `after: the cursor is older than the change log keeps (CHANGE_LOG_RETENTION_HOURS=${retentionHours}); ${oldest}, so changes after the cursor are gone. Read ${spec.currentState} again, then subscribe without after (the first message's endCursor is where to resume from later).`,
  );
}

/**
 * Where a stream starts: after the cursor's position, checked against the log (a cursor retention has
 * passed is CHANGE_CURSOR_EXPIRED; one past the newest change is not a cursor this log gave), or after
 * the newest change when there is none. Also the newest position: every change up to it was committed
 * when the bounds were read. (Retention running later is caught where the changes are read: `after`.)
 */
export async function startingPosition(
  store: Pick<ChangeLogStore, 'bounds' | 'spec' | 'retentionHours'>,
  after: string | null | undefined,
  now = Date.now(),
): Promise<{ position: bigint; newest: bigint }> {
  const { spec } = store;
  const position = after === null || after === undefined ? null : positionOf(spec, after);
  const bounds = await store.bounds();
  if (position === null) return { position: bounds.newest, newest: bounds.newest };
  if (position < bounds.deletedThrough) throw expiredCursor(spec, store.retentionHours, bounds.oldestAt, now);
  if (position > bounds.newest) {
    throw new GatewayError('CHANGE_CURSOR_INVALID', `after: the cursor is past the newest change of ${spec.field}; pass a cursor this stream sent (on this database), or omit after`);
  }
  return { position, newest: bounds.newest };
}
