// Which gateway samples the database's shared series: the one holding a session advisory lock on a
// connection of its own. A session lock is the lease: PostgreSQL releases it the moment the holder's
// connection ends (the process killed, the host gone), so the next copy to try, at its next
// sampling, takes over; no expiry to tune and no clock to trust. The connection goes to the session
// URL (DATABASE_LISTEN_URL), since a transaction-mode pooler would hand the lock to whichever
// client ran next on that server connection.
import pg from 'pg';
import type { Logger } from '../../logger.js';

/** pg_try_advisory_lock key of the metrics sampler ("MSMP"). */
const SAMPLER_LOCK_KEY = 0x4d_53_4d_50;
/** application_name of the lease's connection: whoever holds the lock can be read from pg_stat_activity. */
const APPLICATION_PREFIX = 'gateway metrics sampler ';

export interface SamplerLeaseOptions {
  /** A session (not transaction-pooled) connection string of the gateway's database. */
  url: string;
  /** This gateway's `instance` label, shown as the holder. */
  instance: string;
  logger: Logger;
}

export class SamplerLease {
  private client: pg.Client | undefined;
  private connecting: Promise<pg.Client> | undefined;
  private held = false;
  /** The holder last logged, so a change is logged once. */
  private loggedHolder: string | undefined;
  private closed = false;

  constructor(private readonly options: SamplerLeaseOptions) {}

  /** True while this gateway holds the lease (as of its last attempt). */
  get holding(): boolean {
    return this.held;
  }

  /** Holds the lease if it is free (or already ours); false when another gateway holds it or the database cannot be reached. */
  async tryHold(): Promise<boolean> {
    if (this.closed) return false;
    try {
      const client = await this.connection();
      if (this.held) {
        // Still ours while the session lives: a trivial statement proves it does.
        await client.query('SELECT 1');
        return true;
      }
      const result = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [SAMPLER_LOCK_KEY]);
      this.held = result.rows[0]?.locked === true;
      if (this.held) this.logHolder(this.options.instance);
      else this.logHolder(await this.holder(client));
      return this.held;
    } catch (error) {
      this.lost(error);
      return false;
    }
  }

  /** The `instance` of the gateway holding the lease, as the database says. */
  private async holder(client: pg.Client): Promise<string> {
    const result = await client.query<{ name: string }>(
      `SELECT a.application_name AS name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
        WHERE l.locktype = 'advisory' AND l.granted AND l.objid = $1 AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      [SAMPLER_LOCK_KEY],
    );
    const name = result.rows[0]?.name;
    return name?.startsWith(APPLICATION_PREFIX) ? name.slice(APPLICATION_PREFIX.length) : 'another gateway';
  }

  private logHolder(holder: string): void {
    if (holder === this.loggedHolder) return;
    this.loggedHolder = holder;
    if (holder === this.options.instance) this.options.logger.info({ holder }, `metrics sampler: ${holder} (this gateway) now samples the shared series`);
    else this.options.logger.info({ holder }, `metrics sampler: the shared series are sampled by ${holder}; this gateway samples its own figures only`);
  }

  private async connection(): Promise<pg.Client> {
    if (this.client) return this.client;
    this.connecting ??= (async () => {
      const client = new pg.Client({ connectionString: this.options.url, application_name: `${APPLICATION_PREFIX}${this.options.instance}`.slice(0, 63), connectionTimeoutMillis: 5_000 });
      // The session ending (server restart, network) ends the lease: forget both, try again next time.
      client.on('error', (error) => this.lost(error));
      client.on('end', () => this.lost(undefined));
      await client.connect();
      this.client = client;
      return client;
    })().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private lost(error: unknown): void {
    if (this.held && !this.closed) this.options.logger.warn({ err: error }, 'metrics sampler: the lease connection ended; the shared series go to whichever gateway takes the lease next');
    const client = this.client;
    this.held = false;
    this.loggedHolder = undefined;
    this.client = undefined;
    client?.end().catch(() => undefined);
  }

  /** Gives the lease up (closing its connection releases the lock at once). */
  async release(): Promise<void> {
    this.closed = true;
    this.held = false;
    const client = this.client ?? (await this.connecting?.catch(() => undefined));
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }
}
