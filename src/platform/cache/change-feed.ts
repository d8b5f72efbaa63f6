// Announcements of committed changes to published records (migration change_announcements: a
// trigger on each table notifies channel gateway_changes with "<table>:<key>"), received on one
// connection of its own that LISTENs. While that connection is down nothing may be cached (a change
// could go unheard), so subscribers are told to reset when it drops and again when it is back.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Logger } from '../../logger.js';

export const CHANGE_CHANNEL = 'gateway_changes';

/** A committed change to `table`'s record `key` (`*`: every record of the table). */
export interface Change {
  table: string;
  key: string;
}

export interface ChangeListener {
  change(change: Change): void;
  /** Forget everything: announcements may have been missed (connection lost) or may resume. */
  reset(): void;
}

export interface ChangeFeed {
  /** True while announcements are being received; caches hold nothing otherwise. */
  readonly listening: boolean;
  subscribe(listener: ChangeListener): void;
  /** Tells this process's subscribers at once (its own writes, before the announcement comes back). */
  announceLocally(change: Change): void;
  /**
   * Resolves once every change committed before the call has been received: a marker sent now
   * comes back after them (PostgreSQL delivers notifications in commit order).
   */
  sync(): Promise<void>;
  close(): Promise<void>;
}

const RETRY_MS = [500, 1_000, 2_000, 5_000, 10_000];
const SYNC_MARKER = 'sync';
const SYNC_TIMEOUT_MS = 5_000;
const PROBE_TIMEOUT_MS = 2_000;

export interface ChangeFeedOptions {
  /**
   * Sends a notification from another connection (the pool). The feed counts as listening only once
   * such a probe comes back: through a transaction-mode pooler LISTEN succeeds but nothing arrives,
   * and caches trusting it would never be told of a change.
   */
  probe?: (channel: string, payload: string) => Promise<unknown>;
}

/** LISTEN succeeded but a notification sent from the pool did not arrive. */
class AnnouncementsNotHeard extends Error {}

export async function openChangeFeed(url: string, logger: Logger, options: ChangeFeedOptions = {}): Promise<ChangeFeed> {
  const listeners: ChangeListener[] = [];
  let client: pg.Client | undefined;
  let listening = false;
  let closed = false;
  let attempt = 0;
  let retryTimer: NodeJS.Timeout | undefined;

  const resetAll = () => listeners.forEach((listener) => listener.reset());
  const syncs = new Map<string, () => void>();

  const connect = async (): Promise<void> => {
    const candidate = new pg.Client({ connectionString: url });
    candidate.on('notification', (message) => {
      const payload = message.payload ?? '';
      const colon = payload.indexOf(':');
      if (colon <= 0) return;
      const change = { table: payload.slice(0, colon), key: payload.slice(colon + 1) };
      if (change.table === SYNC_MARKER) {
        syncs.get(change.key)?.();
        return;
      }
      listeners.forEach((listener) => listener.change(change));
    });
    const lost = (error?: Error) => {
      if (client !== candidate) return;
      client = undefined;
      listening = false;
      resetAll();
      if (closed) return;
      logger.warn({ err: error }, 'change announcements: connection lost; published records are not cached until it is back');
      scheduleRetry();
    };
    candidate.on('error', lost);
    candidate.on('end', () => lost());
    await candidate.connect();
    await candidate.query(`LISTEN ${CHANGE_CHANNEL}`);
    if (options.probe && !(await heard(options.probe))) {
      await candidate.end().catch(() => undefined);
      throw new AnnouncementsNotHeard(
        'change announcements: LISTEN succeeded but a notification sent from the pool never arrived (a transaction-mode pooler such as PgBouncer between the gateway and PostgreSQL?): published records are not cached. Set DATABASE_LISTEN_URL to a direct connection.',
      );
    }
    if (closed) {
      await candidate.end().catch(() => undefined);
      return;
    }
    client = candidate;
    listening = true;
    attempt = 0;
    // Anything committed while nobody listened is unknown: start from nothing.
    resetAll();
  };

  const heard = async (probe: NonNullable<ChangeFeedOptions['probe']>): Promise<boolean> => {
    const token = randomUUID();
    const back = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), PROBE_TIMEOUT_MS);
      syncs.set(token, () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    try {
      await probe(CHANGE_CHANNEL, `${SYNC_MARKER}:${token}`);
      return await back;
    } finally {
      syncs.delete(token);
    }
  };

  const scheduleRetry = () => {
    if (closed) return;
    const delay = RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)]!;
    attempt += 1;
    retryTimer = setTimeout(() => {
      connect().catch((error: unknown) => {
        if (error instanceof AnnouncementsNotHeard) logger.error(error.message);
        else logger.warn({ err: error }, 'change announcements: reconnect failed');
        scheduleRetry();
      });
    }, delay);
    retryTimer.unref();
  };

  await connect().catch((error: unknown) => {
    // Serving without caches is correct, only slower: start, say so loudly, and keep trying.
    if (!(error instanceof AnnouncementsNotHeard)) throw error;
    logger.error(error.message);
    scheduleRetry();
  });
  return {
    get listening() {
      return listening;
    },
    subscribe(listener) {
      listeners.push(listener);
    },
    announceLocally(change) {
      listeners.forEach((listener) => listener.change(change));
    },
    async sync() {
      const current = client;
      if (!current) return;
      const token = randomUUID();
      const back = new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, SYNC_TIMEOUT_MS);
        syncs.set(token, () => {
          clearTimeout(timer);
          resolve();
        });
      });
      try {
        await current.query('SELECT pg_notify($1, $2)', [CHANGE_CHANNEL, `${SYNC_MARKER}:${token}`]);
        await back;
      } catch {
        // The connection failed: the caches have been reset, nothing is left to wait for.
      } finally {
        syncs.delete(token);
      }
    },
    async close() {
      closed = true;
      clearTimeout(retryTimer);
      listening = false;
      const current = client;
      client = undefined;
      await current?.end().catch(() => undefined);
    },
  };
}
