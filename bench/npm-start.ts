// `npm run bench:start`: how long `npm start` takes to the first 200 from /readyz when nothing
// changed (warm: each generation step finds its stamp current and is skipped), against the same
// start with every generation step run again (cold generation: GENERATE_STAMPS points at an empty
// folder, so scripts/generate.mjs finds no stamp, as a fresh clone does; the real stamps are left
// alone). Both on one data folder whose PostgreSQL is initialised by a first, uncounted start; the
// two kinds run in turn (warm, cold, warm, cold, ...) so a drift of the machine's load touches both.
// Each start prints its seconds to ready and to the gateway's first log line (its `npm run generate`,
// compile and node loading the gateway come before it), with the load average; then the medians.
//
// Settings (environment): BENCH_ROUNDS (default 3) pairs of starts.
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatNumber, freePort, loadAverage, log, logMachine, positiveIntegerSetting, printTable, runBench } from './support.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

interface Start {
  readySeconds: number;
  /** Until the gateway's first log line (generation and compile before it). */
  beforeGatewaySeconds: number;
}

async function startOnce(dataDir: string, extraEnv: Record<string, string>): Promise<Start> {
  const port = await freePort();
  const env = { ...process.env, DATA_DIR: dataDir, PORT: String(port), EMBEDDED_PG_PORT: String(await freePort()), HOST: '127.0.0.1', LOG_FORMAT: 'json', ...extraEnv };
  const started = performance.now();
  let gatewayAt: number | undefined;
  let output = '';
  const npm = spawn('npm', ['start'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const read = (chunk: Buffer) => {
    output += chunk.toString();
    // The gateway logs JSON lines; npm's and the steps' lines before it are plain text.
    if (gatewayAt === undefined && /^\{/m.test(output)) gatewayAt = performance.now();
  };
  npm.stdout.on('data', read);
  npm.stderr.on('data', read);
  try {
    for (;;) {
      if (npm.exitCode !== null) throw new Error(`npm start exited with ${npm.exitCode}:\n${output}`);
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (response) => response.status === 200,
        () => false,
      );
      if (ready) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const readyAt = performance.now();
    return { readySeconds: (readyAt - started) / 1000, beforeGatewaySeconds: ((gatewayAt ?? readyAt) - started) / 1000 };
  } finally {
    const exited = new Promise((resolve) => npm.once('exit', resolve));
    process.kill(npm.pid!, 'SIGTERM');
    await exited;
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

runBench(async () => {
  const rounds = positiveIntegerSetting('BENCH_ROUNDS', 3);
  logMachine();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-npm-start-'));
  // As root the embedded PostgreSQL runs as user postgres, which must enter the folder.
  chmodSync(dataDir, 0o755);
  const stamps = () => mkdtempSync(path.join(tmpdir(), 'bench-stamps-'));
  try {
    log('first start (initialises PostgreSQL and brings the stamps up to date; not counted)');
    await startOnce(dataDir, {});
    const rows: string[][] = [];
    const seen: Record<'warm' | 'cold generation', Start[]> = { warm: [], 'cold generation': [] };
    for (let round = 1; round <= rounds; round += 1) {
      for (const kind of ['warm', 'cold generation'] as const) {
        const folder = kind === 'warm' ? undefined : stamps();
        try {
          const start = await startOnce(dataDir, folder ? { GENERATE_STAMPS: folder } : {});
          seen[kind].push(start);
          rows.push([String(round), kind, formatNumber(start.readySeconds, 1), formatNumber(start.beforeGatewaySeconds, 1), loadAverage()]);
          log(`round ${round} ${kind}: ready after ${formatNumber(start.readySeconds, 1)} s (${formatNumber(start.beforeGatewaySeconds, 1)} s to its first log line), load ${loadAverage()}`);
        } finally {
          if (folder) rmSync(folder, { recursive: true, force: true });
        }
      }
    }
    log('');
    printTable(['round', 'start', 'ready s', 'first log line s', 'load average'], rows);
    for (const kind of ['warm', 'cold generation'] as const) {
      log(
        `median ${kind}: ready after ${formatNumber(median(seen[kind].map((start) => start.readySeconds)), 1)} s, ${formatNumber(median(seen[kind].map((start) => start.beforeGatewaySeconds)), 1)} s to the gateway's first log line`,
      );
    }
    return true;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
