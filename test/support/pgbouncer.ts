// A real PgBouncer (Debian package `pgbouncer`) in transaction mode in front of the test cluster,
// as most production PostgreSQL setups put one in front of many clients.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startDaemon, stopDaemon } from './daemon.js';
import { findFreePort } from '../../src/platform/database/embedded.js';

export const PGBOUNCER = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'].find((candidate) => spawnSync(candidate, ['--version']).status === 0);

export interface PgBouncer {
  /** `target` with host and port replaced by PgBouncer's. */
  urlFor(target: string): string;
  /** A connection string to PgBouncer's admin console (SHOW POOLS, SHOW STATS). */
  adminUrl: string;
  stop(): Promise<void>;
}

/** Starts PgBouncer in transaction mode in front of `target`'s server, for `target`'s user and password. */
export async function startPgBouncer(target: string, options: { poolSize?: number } = {}): Promise<PgBouncer> {
  if (!PGBOUNCER) throw new Error('pgbouncer is not installed');
  const server = new URL(target);
  const user = decodeURIComponent(server.username);
  const password = decodeURIComponent(server.password);
  const port = await findFreePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'pgbouncer-'));
  // As root PgBouncer refuses to run unless told to switch user (-u); that user must read the files.
  chmodSync(dir, 0o755);
  const ini = path.join(dir, 'pgbouncer.ini');
  const users = path.join(dir, 'userlist.txt');
  writeFileSync(users, `"${user}" "${password}"\n`, { mode: 0o644 });
  writeFileSync(
    ini,
    [
      '[databases]',
      `* = host=${server.hostname} port=${server.port}`,
      '[pgbouncer]',
      `listen_addr = 127.0.0.1`,
      `listen_port = ${port}`,
      `unix_socket_dir =`,
      `auth_type = scram-sha-256`,
      `auth_file = ${users}`,
      `admin_users = ${user}`,
      `pool_mode = transaction`,
      `default_pool_size = ${options.poolSize ?? 5}`,
      `max_client_conn = 200`,
      // node-postgres sends these as start-up parameters; PgBouncer refuses unknown ones.
      `ignore_startup_parameters = statement_timeout,extra_float_digits,options`,
      '',
    ].join('\n'),
    { mode: 0o644 },
  );
  const asRoot = process.getuid?.() === 0;
  const { child } = await startDaemon('pgbouncer', PGBOUNCER, [...(asRoot ? ['-u', 'postgres'] : []), ini], port, dir);
  const urlFor = (url: string) => {
    const via = new URL(url);
    via.hostname = '127.0.0.1';
    via.port = String(port);
    return via.toString();
  };
  const admin = new URL(urlFor(target));
  admin.pathname = '/pgbouncer';
  return {
    urlFor,
    adminUrl: admin.toString(),
    stop: () => stopDaemon(child, dir),
  };
}
