// A gateway killed with SIGKILL cannot stop its embedded PostgreSQL, which keeps running on
// DATA_DIR. The next start recognises that orphan (its owner is gone), stops it cleanly and starts
// again on the same data; while a gateway does run on the folder, a second one is refused, saying so.
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import type { ChildProcess } from 'node:child_process';
import { envelope, SQL_QUERY } from '../support/api.js';
import { exited, startChildGateway } from '../support/child-gateway.js';

const children: ChildProcess[] = [];
let dataDir: string | undefined;

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  await Promise.all(children.map((child) => exited(child)));
  if (!dataDir) return;
  // Should the test fail midway, no PostgreSQL may outlive it.
  const postmaster = Number((await readFile(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').catch(() => '')).split('\n')[0]);
  if (postmaster > 0) process.kill(postmaster, 'SIGINT');
  await rm(dataDir, { recursive: true, force: true });
});

describe('the embedded PostgreSQL after a SIGKILL of its gateway', () => {
  it('is taken over by the next start on the same DATA_DIR, data intact, and a second live gateway is refused', async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'gateway-restart-'));
    await chmod(dataDir, 0o755); // as root, PostgreSQL runs as `postgres` and must enter it
    const env = { DATA_DIR: dataDir };

    const first = await startChildGateway(null, env);
    children.push(first.process);
    const created = await fetch(`${first.url}/v2/template/create`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(envelope('api.query.template.create', { template_name: 'Survives Kill', query_type: 'sql', query: SQL_QUERY })),
    });
    expect(created.status).toBe(200);
    first.process.kill('SIGKILL');
    await exited(first.process);
    // Its PostgreSQL is still there, holding the folder.
    expect(existsSync(path.join(dataDir, 'postgres', 'postmaster.pid'))).toBe(true);

    const second = await startChildGateway(null, { ...env, LOG_LEVEL: 'info' });
    children.push(second.process);
    expect(second.output()).toMatch(/stopping the server \(pid \d+\) left running on .* by a gateway that ended without stopping it/);
    const read = await fetch(`${second.url}/v2/template/read/survives_kill`);
    expect(read.status).toBe(200);

    await expect(startChildGateway(null, env)).rejects.toThrow(/belongs to a running process \(pid \d+, another gateway\?\)/);

    second.process.kill('SIGTERM');
    await exited(second.process);
    expect(existsSync(path.join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
  }, 90_000);
});
