// The metadata database: one pg pool shared by Prisma (through its pg driver adapter) and by the
// few places that need plain SQL (migrations, readiness probe).
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import type { Config } from '../../config.js';
import { PrismaClient } from '../../generated/prisma/client.js';
import { redactUrl, type Logger } from '../../logger.js';
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from './embedded.js';
import { openChangeFeed, type ChangeFeed } from '../cache/change-feed.js';
import { applyMigrations } from './migrate.js';
import { openQueryReader } from './query-reader.js';
import { operationTransactions, routedPool, type OperationTransactions } from './operation-transaction.js';

export type { PrismaClient };

export interface Database {
  prisma: PrismaClient;
  pool: pg.Pool;
  /** Runs an operation with every Prisma statement it sends in one transaction (operation-transaction.ts). */
  operations: OperationTransactions;
  /** The pool Prisma sends through, for a store's prepared statements: inside an operation, its transaction. */
  storePool: pg.Pool;
  /** Connections for template queries: a role that reads the datasource views only (query-reader.ts). */
  queryPool: pg.Pool;
  /** Whom template queries run as, for start-up logs. */
  queryRole: string;
  /** Committed changes to published records, as the database announces them (caches listen). */
  changes: ChangeFeed;
  /** A connection string for session-long state (LISTEN, session advisory locks): DATABASE_LISTEN_URL, else the pool's. */
  sessionUrl: string;
  /** Where the data lives, for start-up logs (password hidden). */
  description: string;
  /**
   * A small pool of its own on the same database, for writes that must never wait behind the main
   * pool's queue (the ingestion counters, written after each ingest call); closed with the database.
   */
  openSidePool(max: number): pg.Pool;
  /** SQL statements sent since start-up (every client of the pool, Prisma's included). */
  statementCount(): number;
  /** Rejects with the reason when the database cannot answer a trivial query within the timeout. */
  ping(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /**
   * A direct (session) connection to the same database, for what a transaction-mode pooler in front
   * of `url` cannot carry: LISTEN. Unset: the pool's URL.
   */
  listenUrl?: string;
}

export async function openDatabase(settings: Config['database'], logger: Logger, options: DatabaseOptions = {}): Promise<Database> {
  let embedded: EmbeddedPostgresHandle | undefined;
  let url: string;
  if (settings.mode === 'embedded') {
    const started = Date.now();
    embedded = await startEmbeddedPostgres({
      dataDir: settings.dataDir,
      port: settings.port,
      database: 'gateway',
      log: (message) => logger.info(message),
    });
    logger.info({ dataDir: embedded.dataDir, port: embedded.port, ms: Date.now() - started }, 'embedded PostgreSQL started');
    url = embedded.url;
  } else {
    url = settings.url;
  }

  // The server shutting down (Ctrl-C reaches the embedded PostgreSQL too) ends every connection:
  // expected, so one quiet line and no stack.
  const connectionFailed = (error: Error, what: string) => {
    if ((error as { code?: string }).code === '57P01') logger.info(`${what}: the database server is shutting down`);
    else logger.warn({ err: error }, what);
  };

  // Count statements at the client, the one place every query passes (pool.query and Prisma alike).
  let statements = 0;
  const createPool = (connectionString: string, max: number) => {
    const created = new pg.Pool({ connectionString, max, statement_timeout: settings.statementTimeoutMs, connectionTimeoutMillis: 5_000, idleTimeoutMillis: 30_000 });
    // An idle client dying (e.g. the server restarting) must not crash the process.
    created.on('error', (error) => connectionFailed(error, 'idle database connection failed'));
    created.on('connect', (client) => {
      // The pool listens for errors only while a client is idle; one the server drops while it is
      // checked out (between two statements of a transaction) would emit an 'error' nobody handles,
      // which ends the process. Its next query fails instead, and the request gets a 503.
      client.on('error', (error) => connectionFailed(error, 'database connection in use failed'));
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
        statements += 1;
        return query(...args);
      };
    });
    return created;
  };
  const pool = createPool(url, settings.poolMax);
  const listenUrl = settings.mode === 'external' && options.listenUrl ? options.listenUrl : url;

  let queryReader: Awaited<ReturnType<typeof openQueryReader>>;
  let changes: ChangeFeed;
  try {
    const applied = await applyMigrations(pool);
    logger.info({ applied }, applied.length ? `applied ${applied.length} migration(s)` : 'database schema is up to date');
    queryReader = await openQueryReader(
      pool,
      {
        url,
        hideCatalogs: settings.hideCatalogs,
        ...(settings.queryUrl ? { explicitUrl: settings.queryUrl } : {}),
        createPool: (readerUrl) => createPool(readerUrl, Math.max(2, Math.ceil(settings.poolMax / 2))),
      },
      logger,
    );
    changes = await openChangeFeed(listenUrl, logger, { probe: (channel, payload) => pool.query('SELECT pg_notify($1, $2)', [channel, payload]) });
  } catch (error) {
    await pool.end().catch(() => undefined);
    await embedded?.stop().catch(() => undefined);
    throw error;
  }

  const storePool = routedPool(pool);
  const prisma = new PrismaClient({ adapter: new PrismaPg(storePool) });
  const sidePools: pg.Pool[] = [];
  const description =
    settings.mode === 'embedded'
      ? `embedded PostgreSQL at 127.0.0.1:${embedded!.port} (data in ${embedded!.dataDir})`
      : `external PostgreSQL at ${redactUrl(url)}; announcements (LISTEN) over ${listenUrl === url ? 'the same URL' : `DATABASE_LISTEN_URL ${redactUrl(listenUrl)}`}`;

  return {
    prisma,
    pool,
    operations: operationTransactions(pool),
    storePool,
    queryPool: queryReader.pool,
    queryRole: queryReader.description,
    changes,
    sessionUrl: listenUrl,
    description,
    openSidePool(max) {
      const side = createPool(url, max);
      sidePools.push(side);
      return side;
    },
    statementCount: () => statements,
    async ping(timeoutMs = 2_000) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`database did not answer within ${timeoutMs} ms`)), timeoutMs);
      });
      try {
        await Promise.race([pool.query('SELECT 1'), timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
    async close() {
      await changes.close();
      await prisma.$disconnect().catch(() => undefined);
      await queryReader.close().catch(() => undefined);
      await Promise.all(sidePools.map((side) => side.end().catch(() => undefined)));
      await pool.end().catch(() => undefined);
      await embedded?.stop();
    },
  };
}
