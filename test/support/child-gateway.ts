// Runs the gateway the way an operator does (`node --import tsx src/main.ts`) as a child process,
// for tests about the process itself: a crash, a signal, a restart.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findFreePort } from '../../src/platform/database/embedded.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface ChildGateway {
  process: ChildProcess;
  url: string;
  /** Everything written to stdout and stderr so far. */
  output: () => string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts the gateway on `databaseUrl` (null: its embedded PostgreSQL, under `env.DATA_DIR`) plus
 * `env`, and waits until /readyz answers 200. A DATA_DIR made here is removed when the child exits.
 */
export async function startChildGateway(databaseUrl: string | null, env: Record<string, string> = {}, options: { compiled?: boolean } = {}): Promise<ChildGateway> {
  // env.PORT: a port of the caller's choice (a balancer's configuration names it).
  const port = env.PORT ? Number(env.PORT) : await findFreePort();
  const ownDataDir = env.DATA_DIR ? undefined : mkdtempSync(path.join(tmpdir(), 'gateway-child-'));
  // compiled: dist/ as `npm start` runs it (buildGateway() first), which starts in a fraction of the time.
  const child = spawn(process.execPath, options.compiled ? ['--enable-source-maps', 'dist/src/main.js'] : ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      ...(ownDataDir ? { DATA_DIR: ownDataDir } : {}),
      ...(databaseUrl === null ? { EMBEDDED_PG_PORT: '0' } : { DATABASE_URL: databaseUrl }),
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      NODE_ENV: 'test',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (ownDataDir) child.once('exit', () => rmSync(ownDataDir, { recursive: true, force: true }));
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  // Generous: on a loaded machine loading the TypeScript sources alone can take tens of seconds.
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the gateway exited with ${child.exitCode} before it was ready:\n${output}`);
    const ready = await fetch(`${url}/readyz`).then(
      (response) => response.status === 200,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the gateway was not ready within 60 s:\n${output}`);
    }
    await sleep(100);
  }
  return { process: child, url, output: () => output };
}

/** Compiles src/ and rest/ into dist/ (scripts/build.mjs, about a second), for `compiled` children. */
export function buildGateway(): void {
  const built = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`build failed:\n${built.stdout}${built.stderr}`);
}

/** Resolves with the exit code (or signal) once the child has exited. */
export function exited(child: ChildProcess): Promise<number | NodeJS.Signals | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode ?? child.signalCode);
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
}
