// What an operator sees when the gateway cannot start for a reason they can fix: one line naming
// it, before anything else happens (no database started in DATA_DIR, no migrations, no stack).
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function runGateway(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', HOST: '127.0.0.1', NODE_ENV: 'test', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => resolve({ code, output }));
  });
}

describe('starting on a port another process holds', () => {
  it('exits 1 with one line naming the port and what to do, before the database starts', async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as net.AddressInfo).port;
    const dataDir = await mkdtemp(path.join(tmpdir(), 'gateway-busy-port-'));
    try {
      const { code, output } = await runGateway({ PORT: String(port), DATA_DIR: dataDir, LOG_FORMAT: 'json' });
      expect(code).toBe(1);
      const lines = output.trim().split('\n');
      expect(lines).toHaveLength(1);
      const line = JSON.parse(lines[0]!) as { level: number; msg: string; err?: unknown };
      expect(line.msg).toBe(`gateway could not start: port ${port} on 127.0.0.1 is already in use (another gateway?): stop that process or set PORT to a free port`);
      expect(line.err).toBeUndefined();
      expect(await readdir(dataDir)).toEqual([]); // no PostgreSQL was started
    } finally {
      holder.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 30_000);
});
