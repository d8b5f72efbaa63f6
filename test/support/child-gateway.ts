// Runs the gateway the way an operator does (`npm start`: dist/src/main.js, compiled once per test
// run) as a child process, for tests about the process itself: a crash, a signal, a restart.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
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
  // Compiled unless asked otherwise: it starts in a fraction of the time tsx takes to load src/.
  const compiled = options.compiled ?? true;
  if (compiled) buildGateway();
  const child = spawn(process.execPath, compiled ? ['--enable-source-maps', 'dist/src/main.js'] : ['--import', 'tsx', 'src/main.ts'], {
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

function compile(): void {
  const built = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`build failed:\n${built.stdout}${built.stderr}`);
}

let builtForThisProcess = false;

/**
 * Compiles src/ and rest/ into dist/ (scripts/build.mjs, about a second), for `compiled` children:
 * once per test run. The build empties dist/ first, so a second one from another worker would pull
 * the files from under copies another test file is starting; the first caller builds, the others
 * wait for it (a folder in the run's folder is the lock, made by one of them only).
 */
export function buildGateway(): void {
  if (builtForThisProcess) return;
  buildOncePerRun();
  builtForThisProcess = true;
}

function buildOncePerRun(): void {
  const runDir = process.env.TEST_RUN_DIR;
  if (!runDir) return compile();
  const lock = path.join(runDir, 'dist-build');
  const done = path.join(lock, 'outcome');
  try {
    mkdirSync(lock);
  } catch {
    const deadline = Date.now() + 120_000;
    while (!existsSync(done)) {
      if (Date.now() > deadline) throw new Error('the gateway build of another test file did not finish within 120 s');
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
    }
    const failure = readFileSync(done, 'utf8');
    if (failure) throw new Error(failure);
    return;
  }
  // Written whole, then renamed: a waiter never reads half an outcome.
  const settle = (failure: string) => {
    writeFileSync(`${done}.part`, failure);
    renameSync(`${done}.part`, done);
  };
  try {
    compile();
    settle('');
  } catch (error) {
    settle((error as Error).message);
    throw error;
  }
}

/** Resolves with the exit code (or signal) once the child has exited. */
export function exited(child: ChildProcess): Promise<number | NodeJS.Signals | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode ?? child.signalCode);
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
}
