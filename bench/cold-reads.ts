// `npm run bench:cold`: reads from a fresh gateway's first second (issue 53). bench/gateway.ts
// cannot show this: it checks every distinct request once and warms up before it measures.
//
// One gateway seeds COLD_DATASETS Live datasets through REST and stops; a fresh gateway process
// (run as `npm start` runs it) starts on the same database, and from the moment /readyz answers,
// REST dataset reads over those ids run in back-to-back rounds of BENCH_DURATION seconds. Each round
// prints req/s and p99, the share the fast path answered and the gateway's CPU per request (from its
// own /metrics), and whether any change was announced meanwhile (which would drop kept answers).
//
// Settings (environment): BENCH_DURATION seconds per round (default 5), BENCH_ROUNDS (default 4),
// BENCH_CONNECTIONS (default 50), COLD_DATASETS (default 160), BENCH_NODE_FLAGS for the fresh
// gateway (e.g. --cpu-prof).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import pg from 'pg';
import { Cleanups, formatNumber, freePort, log, logMachine, positiveIntegerSetting, postEnvelope, printTable, runAutocannon, runBench, startBenchGateway, startCommandArgs } from './support.js';

const SEED_CONCURRENCY = 8;

function definition(datasetId: string) {
  return {
    dataset_id: datasetId,
    name: `Cold ${datasetId}`,
    type: 'event',
    api_version: 'v2',
    tags: ['bench'],
    data_schema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { id: { type: 'string' }, ts: { type: 'string', format: 'date-time' } },
      required: ['id', 'ts'],
      additionalProperties: false,
    },
    dataset_config: {
      keys_config: { data_key: '', partition_key: '', timestamp_key: 'ts' },
      indexing_config: { olap_store_enabled: true, lakehouse_enabled: false, cache_enabled: false },
      cache_config: { cache_db_host: 'localhost', cache_db_port: 6379, cache_db: 0 },
      file_upload_path: [],
    },
    validation_config: { validate: true, mode: 'Strict' },
    sample_data: { id: 'e1', ts: '2026-01-01T00:00:00Z' },
  };
}

async function seed(gatewayUrl: string, count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, (_, index) => `cold-${String(index).padStart(4, '0')}`);
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const id = ids[next++]!;
      await postEnvelope(gatewayUrl, '/v2/datasets/import', 'api.datasets.import', definition(id), id);
      for (const status of ['ReadyToPublish', 'Live']) {
        await postEnvelope(gatewayUrl, '/v2/datasets/status-transition', 'api.datasets.status-transition', { dataset_id: id, status }, `${id} to ${status}`);
      }
    }
  };
  await Promise.all(Array.from({ length: SEED_CONCURRENCY }, worker));
  return ids;
}

/** The figures of the gateway's own /metrics a round reads: reads answered, those by the fast path, CPU seconds. */
async function gatewayFigures(url: string): Promise<{ reads: number; fastPath: number; cpuSeconds: number }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const sum = (pattern: RegExp) =>
    text
      .split('\n')
      .filter((line) => pattern.test(line))
      .reduce((total, line) => total + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
  return {
    reads: sum(/^gateway_http_requests_total\{.*operation="api\.datasets\.read"/),
    fastPath: sum(/^gateway_fast_path_answers_total\{transport="rest"\}/),
    cpuSeconds: sum(/^process_cpu_seconds_total /),
  };
}

async function main(): Promise<boolean> {
  const duration = positiveIntegerSetting('BENCH_DURATION', 5);
  const rounds = positiveIntegerSetting('BENCH_ROUNDS', 4);
  const connections = positiveIntegerSetting('BENCH_CONNECTIONS', 50);
  const datasets = positiveIntegerSetting('COLD_DATASETS', 160);
  logMachine();
  const cleanups = new Cleanups();
  try {
    const seeding = await startBenchGateway(cleanups, 10);
    log(`seeding ${datasets} Live datasets through REST…`);
    const ids = await seed(seeding.url, datasets);
    process.kill(seeding.pid!, 'SIGTERM');
    while (isRunning(seeding.pid!)) await new Promise((resolve) => setTimeout(resolve, 50));

    // Changes announced while the rounds run would drop kept answers: counted, to tell that case apart.
    const listener = new pg.Client({ connectionString: seeding.cluster.url });
    await listener.connect();
    cleanups.push('change listener', () => listener.end());
    let announced = 0;
    listener.on('notification', (message) => {
      if (!(message.payload ?? '').startsWith('sync:')) announced += 1;
    });
    await listener.query('LISTEN gateway_changes');

    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const args = [...(process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean), ...startCommandArgs()];
    log(`starting a fresh gateway on the seeded database: node ${args.join(' ')}…`);
    const startedAt = performance.now();
    const env = { ...process.env, DATABASE_URL: seeding.cluster.url, HOST: '127.0.0.1', PORT: String(port), NODE_ENV: 'production', LOG_LEVEL: 'silent', DB_POOL_MAX: '10' };
    const fresh = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'inherit'] });
    cleanups.push('fresh gateway', async () => {
      if (fresh.exitCode !== null) return;
      fresh.kill('SIGTERM');
      await once(fresh, 'exit');
    });
    while (
      !(await fetch(`${url}/readyz`).then(
        (response) => response.ok,
        () => false,
      ))
    )
      await new Promise((resolve) => setTimeout(resolve, 20));
    log(`ready ${Math.round(performance.now() - startedAt)} ms after it was started; rounds of ${duration} s, ${connections} connections, ${ids.length} ids`);

    const rows: string[][] = [];
    let before = await gatewayFigures(url);
    for (let round = 1; round <= rounds; round += 1) {
      const result = await runAutocannon({ url, connections, duration, requests: ids.map((id) => ({ method: 'GET', path: `/v2/datasets/read/${id}` })) });
      const after = await gatewayFigures(url);
      const reads = after.reads - before.reads;
      rows.push([
        String(round),
        formatNumber(result.requests.average, 0),
        String(result.latency.p99),
        String(result.non2xx),
        reads > 0 ? `${Math.round(((after.fastPath - before.fastPath) / reads) * 100)} %` : '-',
        reads > 0 ? formatNumber(((after.cpuSeconds - before.cpuSeconds) * 1000) / reads, 2) : '-',
        String(announced),
      ]);
      before = after;
    }
    printTable(['round', 'req/s', 'p99 ms', 'non-2xx', 'fast path', 'CPU ms/read', 'changes announced'], rows);
    log("req/s and p99: autocannon; fast path, CPU ms per read: the gateway's own /metrics over the round; changes announced: on gateway_changes since the fresh gateway started.");
    return rows.every((row) => row[3] === '0');
  } finally {
    await cleanups.runAll();
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

runBench(main);
