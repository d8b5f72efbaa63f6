// The gateway as a supervisor runs it: `npm start` (systemd's ExecStart, a container's command, a
// terminal). The PID the supervisor holds is npm's; SIGTERM sent there must stop the gateway and its
// embedded PostgreSQL, which it does only if npm's shell hands over to node (`exec`), and the
// operator's API-key command must run from dist/ beside it, as it does in the image.
import { execFile, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from '@jest/globals';
import { findFreePort } from '../../src/platform/database/embedded.js';
import { envelope } from '../support/api.js';
import { AUDIENCE, ISSUER, JWT_SECRET } from '../support/auth.js';
import { buildGateway, exited } from '../support/child-gateway.js';
import { accepts } from '../support/daemon.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const run = promisify(execFile);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** How long a stop may take: the gateway's own bound is 10 s (src/main.ts), PostgreSQL's fast shutdown a few more. */
const STOP_BOUND_MS = 15_000;

const dataDir = mkdtempSync(path.join(tmpdir(), 'gateway-npm-start-'));
// As root the embedded PostgreSQL runs as user postgres, which must enter the folder.
chmodSync(dataDir, 0o755);
let group: number | undefined;

afterAll(() => {
  // npm runs in a process group of its own: whatever a failed stop left behind goes with it.
  if (group) {
    try {
      process.kill(-group, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  rmSync(dataDir, { recursive: true, force: true });
});

/** A process that has exited (or is a zombie waiting to be reaped) is not alive. */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** The processes whose parent is `pid`, with their command lines. */
function childrenOf(pid: number): { pid: number; command: string }[] {
  const found: { pid: number; command: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent === pid) found.push({ pid: Number(entry), command: readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').trim() });
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

describe('npm start', () => {
  it('runs node in place of its shell, so SIGTERM to the PID a supervisor holds stops the gateway and its PostgreSQL', async () => {
    buildGateway();
    const port = await findFreePort();
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      DATA_DIR: dataDir,
      EMBEDDED_PG_PORT: String(await findFreePort()),
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_FORMAT: 'json',
      AUTH_MODE: 'jwt',
      JWT_SECRET,
      JWT_ISSUER: ISSUER,
      JWT_AUDIENCE: AUDIENCE,
    };
    // --ignore-scripts skips prestart (generate and build, done above once per run: rebuilding here
    // would pull dist/ from under other test files); the start script itself runs as `npm start` runs it.
    const npm = spawn('npm', ['start', '--ignore-scripts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    group = npm.pid!;
    let output = '';
    npm.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    npm.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const url = `http://127.0.0.1:${port}`;
    for (const deadline = Date.now() + 60_000; ; await sleep(100)) {
      if (npm.exitCode !== null) throw new Error(`npm start exited with ${npm.exitCode} before the gateway was ready:\n${output}`);
      if (
        await fetch(`${url}/readyz`).then(
          (response) => response.status === 200,
          () => false,
        )
      )
        break;
      if (Date.now() > deadline) throw new Error(`the gateway was not ready within 60 s:\n${output}`);
    }

    const children = childrenOf(npm.pid!);
    const gatewayPid = [...children, ...children.flatMap((child) => childrenOf(child.pid))].find((proc) => proc.command.startsWith('node ') && proc.command.includes('dist/src/main.js'))!.pid;
    const postgresPid = Number(readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
    expect(alive(postgresPid)).toBe(true);

    // The operator's command, compiled beside the gateway (as in the image), on the running gateway's database.
    const { stdout } = await run(process.execPath, ['dist/scripts/api-key.js', 'create', 'operator', 'admin'], { cwd: ROOT, env });
    expect(stdout).toMatch(/^API key "operator" \(roles admin\):/);
    const key = stdout.split('\n')[1]!.trim();
    const list = (headers: Record<string, string>) =>
      fetch(`${url}/v2/template/list`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(envelope('api.query.template.list', {})) });
    expect((await list({})).status).toBe(401);
    expect((await list({ 'x-api-key': key })).status).toBe(200);

    const signalled = Date.now();
    process.kill(npm.pid!, 'SIGTERM');
    const code = await exited(npm);
    while ((alive(gatewayPid) || alive(postgresPid)) && Date.now() - signalled < STOP_BOUND_MS) await sleep(50);
    const tookMs = Date.now() - signalled;
    expect({ gateway: alive(gatewayPid), postgres: alive(postgresPid), port: await accepts(port), tookMs: tookMs < STOP_BOUND_MS }).toEqual({
      gateway: false,
      postgres: false,
      port: false,
      tookMs: true,
    });
    expect(code).toBe(0);
    expect(output).toContain('SIGTERM received');
    // Because npm's child is node itself, not a shell that would die and leave node running.
    expect(children.map((child) => child.command.split(' ')[0])).toEqual(['node']);
  }, 120_000);

  // `npm test` has just generated everything, so this is what a restart with nothing changed runs first.
  it('skips the generation steps whose inputs did not change, and says so, and makes a step again when its inputs changed', async () => {
    const generated = ['src/generated/graphql.ts', 'src/generated/rest-operations.ts', 'src/generated/prisma/client.ts'];
    const writtenAt = () => generated.map((file) => statSync(path.join(ROOT, file)).mtimeMs);
    const before = writtenAt();
    const { stdout } = await run('npm', ['run', '-s', 'generate'], { cwd: ROOT });
    expect(stdout).toMatch(/generate: Prisma client up to date \(inputs [0-9a-f]{12}\), not regenerated/);
    expect(stdout).toMatch(/generate: GraphQL types up to date \(inputs [0-9a-f]{12}\), not regenerated/);
    expect(stdout).toMatch(/graphiql: dist\/graphiql is up to date/);
    expect(writtenAt()).toEqual(before);

    // Stamps of other inputs (as after an edit of the schema): the same command would make the step again.
    const stamps = mkdtempSync(path.join(tmpdir(), 'gateway-stamps-'));
    try {
      writeFileSync(path.join(stamps, 'graphql.json'), JSON.stringify({ inputs: 'made from other inputs' }));
      const dry = await run(process.execPath, ['scripts/generate.mjs', '--dry-run'], { cwd: ROOT, env: { ...process.env, GENERATE_STAMPS: stamps } });
      expect(dry.stdout.trim().split('\n')).toEqual(['generate: Prisma client would be generated (no stamp of its inputs yet)', 'generate: GraphQL types would be generated (its inputs changed)']);
    } finally {
      rmSync(stamps, { recursive: true, force: true });
    }
  }, 60_000);
});
