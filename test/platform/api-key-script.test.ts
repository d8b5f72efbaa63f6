// scripts/api-key.ts beside a running gateway on its embedded PostgreSQL: it uses that server
// (rather than fail on the folder the gateway holds), the key it prints is accepted at once, and
// refused at once when it revokes it.
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from '@jest/globals';
import { envelope } from '../support/api.js';
import { AUDIENCE, ISSUER, JWT_SECRET } from '../support/auth.js';
import { exited, startChildGateway, type ChildGateway } from '../support/child-gateway.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const run = promisify(execFile);
let gateway: ChildGateway | undefined;
let dataDir: string | undefined;

afterAll(async () => {
  if (gateway) {
    gateway.process.kill('SIGTERM');
    await exited(gateway.process);
  }
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('scripts/api-key.ts', () => {
  it('creates a key on the database of a running embedded gateway, which accepts it at once and refuses it at once when revoked', async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'gateway-api-key-'));
    await chmod(dataDir, 0o755);
    const env = { DATA_DIR: dataDir, AUTH_MODE: 'jwt', JWT_SECRET, JWT_ISSUER: ISSUER, JWT_AUDIENCE: AUDIENCE };
    gateway = await startChildGateway(null, env);

    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'scripts/api-key.ts', 'create', 'ci-bot', 'dataset_creator'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    });
    expect(stdout).toMatch(/^API key "ci-bot" \(roles dataset_creator\):/);
    const key = stdout.split('\n')[1]!.trim();

    const list = (headers: Record<string, string>) =>
      fetch(`${gateway!.url}/v2/template/list`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(envelope('api.query.template.list', {})) });
    expect((await list({})).status).toBe(401);
    expect((await list({ 'x-api-key': key })).status).toBe(200);

    // The gateway keeps the verified key; revoking it from the command line drops it there at once.
    const revoked = await run(process.execPath, ['--import', 'tsx', 'scripts/api-key.ts', 'revoke', 'ci-bot'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    });
    expect(revoked.stdout).toMatch(/^revoked "ci-bot"/);
    const refused = await list({ 'x-api-key': key });
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/revoked/);
  }, 120_000);
});
