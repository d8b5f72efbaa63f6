// The embedded PostgreSQL's superuser password: random, made with the cluster and kept next to it
// (postgres.password, mode 0600), never the old fixed default; a cluster made with that default is
// moved to a random password at its next start; a lost password file stops the start with advice.
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, stat, unlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../src/platform/database/embedded.js';

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(path.join(os.tmpdir(), 'gateway-pg-password-'));
  await chmod(folder, 0o755);
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

const dataDir = () => path.join(folder, 'postgres');
const passwordFile = () => path.join(folder, 'postgres.password');

/** Whether the superuser can log in with `password` (the error code otherwise). */
async function logsIn(port: number, password: string): Promise<true | string> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password, database: 'postgres' });
  try {
    await client.connect();
    return true;
  } catch (error) {
    return (error as { code?: string }).code ?? (error as Error).message;
  } finally {
    await client.end().catch(() => undefined);
  }
}

describe('the embedded superuser password', () => {
  it('is random, kept in a file only its owner reads, and the old default does not log in', async () => {
    const cluster = await startEmbeddedPostgres({ dataDir: dataDir(), port: 0, database: 'pw' });
    try {
      const password = (await readFile(passwordFile(), 'utf8')).trim();
      expect(password).toMatch(/^[0-9a-f]{48}$/);
      expect((await stat(passwordFile())).mode & 0o777).toBe(0o600);
      expect(new URL(cluster.url).password).toBe(password);
      expect(await logsIn(cluster.port, password)).toBe(true);
      expect(await logsIn(cluster.port, 'gateway')).toBe('28P01');
    } finally {
      await cluster.stop();
    }
  });

  it('moves a cluster made with the old fixed password to a new random one at its next start', async () => {
    // Make the cluster look like one from before the password file: default password, no file.
    const first = await startEmbeddedPostgres({ dataDir: dataDir(), port: 0, database: 'pw' });
    const admin = new pg.Client({ connectionString: first.adminUrl });
    await admin.connect();
    await admin.query("ALTER ROLE postgres WITH PASSWORD 'gateway'");
    await admin.end();
    await first.stop();
    const before = (await readFile(passwordFile(), 'utf8')).trim();
    await unlink(passwordFile());

    const logs: string[] = [];
    const second = await startEmbeddedPostgres({ dataDir: dataDir(), port: 0, database: 'pw', log: (message) => logs.push(message) });
    try {
      const after = (await readFile(passwordFile(), 'utf8')).trim();
      expect(after).toMatch(/^[0-9a-f]{48}$/);
      expect(after).not.toBe(before);
      expect(await logsIn(second.port, after)).toBe(true);
      expect(await logsIn(second.port, 'gateway')).toBe('28P01');
      expect(logs).toContain('embedded PostgreSQL: the superuser password was the old fixed default; replaced by the random one in postgres.password');
    } finally {
      await second.stop();
    }
  });

  it('stops the start with advice when the password file no longer matches the cluster', async () => {
    await unlink(passwordFile());
    await expect(startEmbeddedPostgres({ dataDir: dataDir(), port: 0, database: 'pw' })).rejects.toThrow(/refuses the password in postgres\.password.*restore that file, or remove the data folder/);
    expect(existsSync(passwordFile())).toBe(true);
    // The server it started was stopped again: its pid file is gone.
    expect(existsSync(path.join(dataDir(), 'postmaster.pid'))).toBe(false);
  });
});
