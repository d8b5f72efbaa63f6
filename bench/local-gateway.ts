// A gateway on an embedded PostgreSQL of its own in a temporary folder, on 127.0.0.1, for the
// bench scripts that drive a whole gateway (fuzz, soak). Everything is removed by stop(), and the
// folder also when the process ends abruptly.
import { rmSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Gateway } from '../src/server.js';

export interface LocalGateway {
  url: string;
  gateway: Gateway;
  dataDir: string;
  stop(): Promise<void>;
}

export async function startLocalGateway(env: Record<string, string> = {}): Promise<LocalGateway> {
  const { loadConfig } = await import('../src/config.js');
  const { createLogger } = await import('../src/logger.js');
  const { startEmbeddedPostgres } = await import('../src/platform/database/embedded.js');
  const { startGateway } = await import('../src/server.js');

  const folder = await mkdtemp(path.join(os.tmpdir(), 'gateway-local-'));
  const removeFolder = () => rmSync(folder, { recursive: true, force: true });
  process.on('exit', removeFolder);
  // As root, PostgreSQL runs as the `postgres` user, which must be able to enter this folder.
  await chmod(folder, 0o755);
  const cluster = await startEmbeddedPostgres({ dataDir: path.join(folder, 'postgres'), port: 0, database: 'local' });
  try {
    const config = loadConfig({ DATABASE_URL: cluster.url, DATA_DIR: folder, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'silent', ...env });
    const gateway = await startGateway(config, createLogger(config.logLevel));
    return {
      url: gateway.url,
      gateway,
      dataDir: folder,
      async stop() {
        await gateway.stop().catch(() => undefined);
        await cluster.stop().catch(() => undefined);
        await rm(folder, { recursive: true, force: true });
        process.off('exit', removeFolder);
      },
    };
  } catch (error) {
    await cluster.stop().catch(() => undefined);
    removeFolder();
    throw error;
  }
}
