// Several copies on one PostgreSQL (README "Running at scale"): read throughput and ingestion
// (events/s, 100-event batches into the embedded event store) through a real HAProxy with 1, 2
// and 3 copies, connections per copy, and what the shared rate limiter
// (RATE_LIMIT_STORE=postgres, one UPSERT per decision) costs a request against the in-memory one.
// Every process (PostgreSQL, the copies, HAProxy, autocannon) shares this machine's cores: the
// figures say what one machine allows, not how far more machines would go.
// BENCH_SCALE_SECONDS: seconds per run (default 5). Skipped, saying why, without haproxy.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import pg from 'pg';
import { HAPROXY, startHaProxy } from '../test/support/haproxy.js';
import { temporaryFolder } from './local-gateway.js';
import { Cleanups, formatNumber, jsonHeaders, log, logMachine, positiveIntegerSetting, postEnvelope, printTable, runAutocannon, runBench, startCommandArgs } from './support.js';

const SECONDS = positiveIntegerSetting('BENCH_SCALE_SECONDS', 5);
const CONNECTIONS = 32;
const POOL_MAX = 10;
const TEMPLATE = 'scale_bench';
const DATASET = 'scale_bench_events';
const BATCH = 100;

async function freePort(): Promise<number> {
  const { findFreePort } = await import('../src/platform/database/embedded.js');
  return findFreePort();
}

async function startCopy(cleanups: Cleanups, databaseUrl: string, env: Record<string, string>): Promise<string> {
  const port = await freePort();
  const settings = { DATABASE_URL: databaseUrl, HOST: '127.0.0.1', PORT: String(port), NODE_ENV: 'production', LOG_LEVEL: 'silent', DB_POOL_MAX: String(POOL_MAX), ...env };
  const child = spawn(process.execPath, startCommandArgs(), { env: { ...process.env, ...settings }, stdio: ['ignore', 'ignore', 'inherit'] });
  cleanups.push(`gateway on ${port}`, async () => {
    if (child.exitCode !== null) return;
    child.kill('SIGTERM');
    await once(child, 'exit');
  });
  const url = `http://127.0.0.1:${port}`;
  for (const started = Date.now(); ;) {
    if (
      await fetch(`${url}/readyz`).then(
        (response) => response.ok,
        () => false,
      )
    )
      return url;
    if (child.exitCode !== null) throw new Error(`a gateway copy exited with status ${child.exitCode} before it was ready`);
    if (Date.now() - started > 90_000) throw new Error('a gateway copy was not ready within 90 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function readRun(url: string): Promise<{ rps: number; p50: number; p99: number; errors: number }> {
  const result = await runAutocannon({ url: `${url}/v2/template/read/${TEMPLATE}`, connections: CONNECTIONS, duration: SECONDS, headers: jsonHeaders });
  const errors = result.non2xx + result.errors + result.timeouts;
  if (errors > 0) log(`  ${url}: ${errors} failed (statuses ${JSON.stringify(result.statusCodeStats)}, ${result.errors} errors, ${result.timeouts} timeouts)`);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors };
}

/** A Live event dataset without dedup or validation: the event store's plain write path. */
async function publishDataset(url: string): Promise<void> {
  const definition = {
    dataset_id: DATASET,
    name: DATASET,
    type: 'event',
    api_version: 'v2',
    tags: ['bench'],
    data_schema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { id: { type: 'string' }, ts: { type: 'string', format: 'date-time' }, amount: { type: 'number' } },
      required: ['id', 'ts'],
      additionalProperties: false,
    },
    dataset_config: {
      keys_config: { data_key: '', partition_key: '', timestamp_key: 'ts' },
      indexing_config: { olap_store_enabled: true, lakehouse_enabled: false, cache_enabled: false },
      cache_config: { cache_db_host: 'localhost', cache_db_port: 6379, cache_db: 0 },
      file_upload_path: [],
    },
    validation_config: { validate: false, mode: 'Strict' },
    dedup_config: { drop_duplicates: false, dedup_key: 'id', dedup_period: 604800 },
    sample_data: { id: 'event-1', ts: '2026-01-01T00:00:00.000Z', amount: 1 },
  };
  await postEnvelope(url, '/v2/datasets/import', 'api.datasets.import', definition, DATASET);
  for (const status of ['ReadyToPublish', 'Live'])
    await postEnvelope(url, '/v2/datasets/status-transition', 'api.datasets.status-transition', { dataset_id: DATASET, status }, `${DATASET} to ${status}`);
}

const INGEST_BODY = JSON.stringify({
  id: 'api.data.in',
  ver: 'v2',
  ts: new Date().toISOString(),
  params: { msgid: 'scale-bench' },
  data: Array.from({ length: BATCH }, (_, n) => ({ id: `event-${n}`, ts: new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString(), amount: n })),
});

async function ingestRun(url: string): Promise<{ eventsPerSecond: number; p50: number; p99: number; errors: number }> {
  const result = await runAutocannon({ url: `${url}/v2/data/in/${DATASET}`, method: 'POST', connections: CONNECTIONS / 4, duration: SECONDS, headers: jsonHeaders, body: INGEST_BODY });
  const errors = result.non2xx + result.errors + result.timeouts;
  if (errors > 0) log(`  ${url}: ${errors} ingest calls failed (statuses ${JSON.stringify(result.statusCodeStats)}, ${result.errors} errors, ${result.timeouts} timeouts)`);
  return { eventsPerSecond: result.requests.average * BATCH, p50: result.latency.p50, p99: result.latency.p99, errors };
}

async function main(): Promise<boolean> {
  logMachine();
  if (!HAPROXY) {
    log('bench:scale skipped: haproxy is not installed (Debian package haproxy)');
    return true;
  }
  const cleanups = new Cleanups();
  try {
    const { startEmbeddedPostgres } = await import('../src/platform/database/embedded.js');
    const folder = await temporaryFolder('gateway-scale-');
    cleanups.push('temporary folder', () => folder.remove());
    const cluster = await startEmbeddedPostgres({ dataDir: path.join(folder.path, 'postgres'), port: 0, database: 'scale' });
    cleanups.push('PostgreSQL', () => cluster.stop());

    // The rate limiter's cost: one copy alone, a budget no run exhausts, memory against PostgreSQL.
    const unlimited = { RATE_LIMIT_RPS: '1000000', RATE_LIMIT_BURST: '100000000' };
    log('starting two copies to compare the rate-limit stores…');
    const memoryCopy = await startCopy(cleanups, cluster.url, { ...unlimited, RATE_LIMIT_STORE: 'memory' });
    const sharedCopy = await startCopy(cleanups, cluster.url, { ...unlimited, RATE_LIMIT_STORE: 'postgres' });
    await postEnvelope(
      memoryCopy,
      '/v2/template/create',
      'api.query.template.create',
      { template_name: 'Scale Bench', query_type: 'sql', query: 'SELECT COUNT(*) FROM {{DATASET}} WHERE __time BETWEEN {{STARTDATE}} AND {{ENDDATE}} LIMIT {{LIMIT}}' },
      TEMPLATE,
    );
    await readRun(memoryCopy); // warm-up of both (JIT, caches)
    await readRun(sharedCopy);
    const memory = await readRun(memoryCopy);
    const shared = await readRun(sharedCopy);
    log('');
    log(`rate limiter, one copy, ${CONNECTIONS} connections, ${SECONDS} s, GET /v2/template/read (a cached read):`);
    printTable(
      ['store', 'req/s', 'p50 ms', 'p99 ms', 'failed'],
      [
        ['memory', formatNumber(memory.rps, 0), String(memory.p50), String(memory.p99), String(memory.errors)],
        ['postgres', formatNumber(shared.rps, 0), String(shared.p50), String(shared.p99), String(shared.errors)],
      ],
    );
    log(
      `shared store cost per request: ${formatNumber((1000 / shared.rps - 1000 / memory.rps) * 1000, 0)} µs of machine time at saturation (${formatNumber((1 - shared.rps / memory.rps) * 100, 1)} % fewer req/s)`,
    );
    await cleanups.runAll();

    // Copies behind HAProxy (rate limits off: AUTH_MODE=none), on a fresh cluster.
    const folder2 = await temporaryFolder('gateway-scale-');
    cleanups.push('temporary folder', () => folder2.remove());
    const cluster2 = await startEmbeddedPostgres({ dataDir: path.join(folder2.path, 'postgres'), port: 0, database: 'scale' });
    cleanups.push('PostgreSQL', () => cluster2.stop());
    log('');
    log('starting three copies…');
    const copies: string[] = [];
    for (let index = 0; index < 3; index += 1) copies.push(await startCopy(cleanups, cluster2.url, {}));
    await postEnvelope(
      copies[0]!,
      '/v2/template/create',
      'api.query.template.create',
      { template_name: 'Scale Bench', query_type: 'sql', query: 'SELECT COUNT(*) FROM {{DATASET}} WHERE __time BETWEEN {{STARTDATE}} AND {{ENDDATE}} LIMIT {{LIMIT}}' },
      TEMPLATE,
    );
    await publishDataset(copies[0]!);
    const rows: string[][] = [];
    const ingestRows: string[][] = [];
    for (const count of [1, 2, 3]) {
      const proxy = await startHaProxy(await freePort(), copies.slice(0, count));
      try {
        await readRun(proxy.url);
        const run = await readRun(proxy.url);
        rows.push([`${count} behind HAProxy`, formatNumber(run.rps, 0), String(run.p50), String(run.p99), String(run.errors)]);
        const ingest = await ingestRun(proxy.url);
        ingestRows.push([`${count} behind HAProxy`, formatNumber(ingest.eventsPerSecond, 0), String(ingest.p50), String(ingest.p99), String(ingest.errors)]);
      } finally {
        await proxy.stop();
      }
    }
    const admin = new pg.Client({ connectionString: cluster2.url });
    await admin.connect();
    const { rows: connections } = await admin.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()");
    await admin.end();
    log('');
    log(`reads through HAProxy, ${CONNECTIONS} connections, ${SECONDS} s, GET /v2/template/read (a cached read):`);
    printTable(['copies', 'req/s', 'p50 ms', 'p99 ms', 'failed'], rows);
    log('');
    log(`ingestion through HAProxy, ${CONNECTIONS / 4} connections, ${SECONDS} s, POST /v2/data/in with ${BATCH}-event batches (embedded event store, shared counters):`);
    printTable(['copies', 'events/s', 'p50 ms', 'p99 ms', 'failed'], ingestRows);
    log(
      `PostgreSQL connections after the runs: ${connections[0]!.n} for 3 copies (DB_POOL_MAX=${POOL_MAX}; the pool opens what its load needs, plus one listening connection and the template readers' pool)`,
    );
    return [memory, shared].every((run) => run.errors === 0) && [...rows, ...ingestRows].every((row) => row[4] === '0');
  } finally {
    await cleanups.runAll();
  }
}

runBench(main);
