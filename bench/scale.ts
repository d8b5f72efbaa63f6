// Several copies on one PostgreSQL (docs/operating.md "Running at scale"): read throughput and ingestion
// (events/s, 100-event batches into the embedded event store) through a real HAProxy with 1, 2
// and 3 copies, connections per copy, and what the shared rate limiter
// (RATE_LIMIT_STORE=postgres, decisions batched per round trip) costs a request against the
// in-memory one.
// Every process (PostgreSQL, the copies, HAProxy, autocannon) shares this machine's cores: the
// figures say what one machine allows, not how far more machines would go.
// The copies run twice: on direct connections, then through a real PgBouncer in transaction mode
// (the deploy's pool size, DATABASE_LISTEN_URL direct), each counting PostgreSQL's connections.
// BENCH_SCALE_SECONDS: seconds per run (default 5); BENCH_SCALE_ROUNDS: rounds of the rate-limiter
// comparison (default 2); BENCH_ONLY: a regular expression over the parts' names, rate-limit,
// copies and pgbouncer (default all). Skipped, saying why, without haproxy (PgBouncer's part without
// pgbouncer).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { SignJWT } from 'jose';
import pg from 'pg';
import { HAPROXY, startHaProxy } from '../test/support/haproxy.js';
import { PGBOUNCER, startPgBouncer } from '../test/support/pgbouncer.js';
import { temporaryFolder } from './local-gateway.js';
import { Cleanups, formatNumber, jsonHeaders, loadAverage, log, logMachine, positiveIntegerSetting, postEnvelope, printTable, runAutocannon, runBench, startCommandArgs } from './support.js';

const SECONDS = positiveIntegerSetting('BENCH_SCALE_SECONDS', 5);
const ROUNDS = positiveIntegerSetting('BENCH_SCALE_ROUNDS', 2);
const only = new RegExp(process.env.BENCH_ONLY ?? '');
const CALLERS = 32;
const BENCH_JWT_SECRET = 'bench-secret-that-is-at-least-32-characters';
const CONNECTIONS = 32;
const POOL_MAX = 10;
const TEMPLATE = 'scale_bench';
const DATASET = 'scale_bench_events';
const BATCH = 100;
/** PgBouncer's server connections per database and user, as deploy/pgbouncer/pgbouncer.ini sets them. */
const PGBOUNCER_POOL = 20;

async function freePort(): Promise<number> {
  const { findFreePort } = await import('../src/platform/database/embedded.js');
  return findFreePort();
}

interface Copy {
  url: string;
  pid: number;
}

async function startCopy(cleanups: Cleanups, databaseUrl: string, env: Record<string, string>): Promise<Copy> {
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
      return { url, pid: child.pid! };
    if (child.exitCode !== null) throw new Error(`a gateway copy exited with status ${child.exitCode} before it was ready`);
    if (Date.now() - started > 90_000) throw new Error('a gateway copy was not ready within 90 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface ReadResult {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

/** One request per caller, taken in turn (autocannon's request list); undefined: the one caller. */
type BenchRequests = { headers: Record<string, string> }[] | undefined;

/** Reads of the bench's template. */
async function readRun(url: string, requests?: BenchRequests): Promise<ReadResult> {
  const result = await runAutocannon({ url: `${url}/v2/template/read/${TEMPLATE}`, connections: CONNECTIONS, duration: SECONDS, headers: jsonHeaders, ...(requests ? { requests } : {}) });
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

// Linux's USER_HZ: /proc counts CPU time in these ticks.
const TICKS_PER_SECOND = 100;

/** CPU time (µs) a process used, with that of its children it has waited for when `children`; 0 once it is gone. */
function cpuMicros(pid: number, children = false): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]) + (children ? Number(fields[13]) + Number(fields[14]) : 0);
    return (ticks / TICKS_PER_SECOND) * 1e6;
  } catch {
    return 0;
  }
}

/** CPU time (µs) of a PostgreSQL server: the postmaster (with the backends that ended) and every live backend. */
function postgresMicros(dataDir: string): number {
  const postmaster = Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  let total = cpuMicros(postmaster, true);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster) total += cpuMicros(Number(entry));
    } catch {
      // ended meanwhile
    }
  }
  return total;
}

interface StoreRun extends ReadResult {
  /** CPU µs per answered request: the copy's, and the database server's. */
  gatewayMicros: number;
  postgresMicros: number;
}

/** A read run against one copy, with the CPU time it cost the copy and the database server per request. */
async function measuredRun(copy: Copy, dataDir: string, requests: BenchRequests): Promise<StoreRun> {
  const before = { gateway: cpuMicros(copy.pid), postgres: postgresMicros(dataDir) };
  const run = await readRun(copy.url, requests);
  const answered = run.rps * SECONDS;
  return { ...run, gatewayMicros: (cpuMicros(copy.pid) - before.gateway) / answered, postgresMicros: (postgresMicros(dataDir) - before.postgres) / answered };
}

/**
 * The shared rate limiter's cost: one copy with each store, a budget no run exhausts, read runs of
 * the two stores interleaved (ROUNDS rounds), so a machine shared with other work loads both alike.
 * Besides req/s (which other work on the machine moves), the CPU time each request cost the copy and
 * the database server (from /proc, which that work does not move). Two kinds of traffic: one caller
 * (AUTH_MODE=none: every decision on one row, the worst case for row locks) and CALLERS callers with
 * their own JWT (a row each). True when no request failed.
 */
async function rateLimiterCost(databaseUrl: string, dataDir: string): Promise<boolean> {
  const unlimited = { RATE_LIMIT_RPS: '1000000', RATE_LIMIT_BURST: '100000000' };
  const jwtEnv = { AUTH_MODE: 'jwt', JWT_SECRET: BENCH_JWT_SECRET, JWT_ISSUER: 'bench', JWT_AUDIENCE: 'bench' };
  const secret = new TextEncoder().encode(BENCH_JWT_SECRET);
  const tokens = await Promise.all(
    Array.from({ length: CALLERS }, (_, n) =>
      new SignJWT({ roles: ['admin'] }).setProtectedHeader({ alg: 'HS256' }).setSubject(`bench-caller-${n}`).setIssuer('bench').setAudience('bench').setExpirationTime('1h').sign(secret),
    ),
  );
  const traffic = [
    { name: 'one caller', env: {}, requests: undefined },
    { name: `${CALLERS} callers (JWT)`, env: jwtEnv, requests: tokens.map((token) => ({ headers: { ...jsonHeaders, authorization: `Bearer ${token}` } })) },
  ];
  let failed = 0;
  let templateCreated = false;
  for (const { name, env, requests } of traffic) {
    log(`starting two copies (${name}) to compare the rate-limit stores…`);
    const cleanups = new Cleanups();
    try {
      const copies = {
        memory: await startCopy(cleanups, databaseUrl, { ...unlimited, ...env, RATE_LIMIT_STORE: 'memory' }),
        postgres: await startCopy(cleanups, databaseUrl, { ...unlimited, ...env, RATE_LIMIT_STORE: 'postgres' }),
      };
      if (!templateCreated) {
        await postEnvelope(
          copies.memory.url,
          '/v2/template/create',
          'api.query.template.create',
          { template_name: 'Scale Bench', query_type: 'sql', query: 'SELECT COUNT(*) FROM {{DATASET}} WHERE __time BETWEEN {{STARTDATE}} AND {{ENDDATE}} LIMIT {{LIMIT}}' },
          TEMPLATE,
        );
        templateCreated = true;
      }
      await readRun(copies.memory.url, requests); // warm-up of both (JIT, caches)
      await readRun(copies.postgres.url, requests);
      const rows: string[][] = [];
      const added: number[] = [];
      const ratios: number[] = [];
      for (let round = 1; round <= ROUNDS; round += 1) {
        const order = round % 2 === 1 ? (['memory', 'postgres'] as const) : (['postgres', 'memory'] as const);
        const runs: Partial<Record<'memory' | 'postgres', StoreRun>> = {};
        for (const store of order) {
          const run = await measuredRun(copies[store], dataDir, requests);
          runs[store] = run;
          failed += run.errors;
          rows.push([
            String(round),
            store,
            formatNumber(run.rps, 0),
            formatNumber(run.gatewayMicros, 0),
            formatNumber(run.postgresMicros, 0),
            formatNumber(run.gatewayMicros + run.postgresMicros, 0),
            String(run.p99),
            loadAverage(),
          ]);
        }
        const { memory, postgres } = runs as Record<'memory' | 'postgres', StoreRun>;
        added.push(postgres.gatewayMicros + postgres.postgresMicros - memory.gatewayMicros - memory.postgresMicros);
        ratios.push(postgres.rps / memory.rps);
      }
      const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!;
      log('');
      log(`rate limiter, ${name}, one copy, ${CONNECTIONS} connections, ${SECONDS} s per run, GET /v2/template/read (a cached read), the stores interleaved:`);
      printTable(['round', 'store', 'req/s', 'copy CPU µs/req', 'PostgreSQL CPU µs/req', 'machine µs/req', 'p99 ms', 'load average'], rows);
      log(
        `shared store (${name}), median of ${ROUNDS} rounds: ${formatNumber(median(added), 0)} µs more CPU per request (copy + PostgreSQL); postgres/memory req/s ${formatNumber(median(ratios), 2)}`,
      );
      log('');
    } finally {
      await cleanups.runAll();
    }
  }
  return failed === 0;
}

async function main(): Promise<boolean> {
  logMachine();
  if (!HAPROXY) {
    log('bench:scale skipped: haproxy is not installed (Debian package haproxy)');
    return true;
  }
  const cleanups = new Cleanups();
  try {
    let rateLimiterAnswered = true;
    if (only.test('rate-limit')) {
      const { startEmbeddedPostgres } = await import('../src/platform/database/embedded.js');
      const folder = await temporaryFolder('gateway-scale-');
      cleanups.push('temporary folder', () => folder.remove());
      const cluster = await startEmbeddedPostgres({ dataDir: path.join(folder.path, 'postgres'), port: 0, database: 'scale' });
      cleanups.push('PostgreSQL', () => cluster.stop());
      rateLimiterAnswered = await rateLimiterCost(cluster.url, path.join(folder.path, 'postgres'));
      await cleanups.runAll();
    }

    let copiesAnswered = true;
    if (only.test('copies')) copiesAnswered = await copiesRun(cleanups, 'direct');
    await cleanups.runAll();
    if (only.test('pgbouncer')) {
      if (PGBOUNCER) copiesAnswered = (await copiesRun(cleanups, 'pgbouncer')) && copiesAnswered;
      else log('the PgBouncer part skipped: pgbouncer is not installed (Debian package pgbouncer)');
    }
    return rateLimiterAnswered && copiesAnswered;
  } finally {
    await cleanups.runAll();
  }
}

/**
 * Three copies behind HAProxy (rate limits off: AUTH_MODE=none) on a fresh cluster, reached
 * directly or through PgBouncer: reads and ingestion with 1, 2 and 3 of them, then PostgreSQL's
 * client connections. True when no request failed.
 */
async function copiesRun(cleanups: Cleanups, route: 'direct' | 'pgbouncer'): Promise<boolean> {
  const { startEmbeddedPostgres } = await import('../src/platform/database/embedded.js');
  const folder = await temporaryFolder('gateway-scale-');
  cleanups.push('temporary folder', () => folder.remove());
  const cluster = await startEmbeddedPostgres({ dataDir: path.join(folder.path, 'postgres'), port: 0, database: 'scale' });
  cleanups.push('PostgreSQL', () => cluster.stop());
  let databaseUrl = cluster.url;
  let env: Record<string, string> = {};
  if (route === 'pgbouncer') {
    const bouncer = await startPgBouncer(cluster.url, { poolSize: PGBOUNCER_POOL });
    cleanups.push('PgBouncer', () => bouncer.stop());
    databaseUrl = bouncer.urlFor(cluster.url);
    // LISTEN needs a session of its own, which transaction pooling does not keep.
    env = { DATABASE_LISTEN_URL: cluster.url };
  }
  const via = route === 'direct' ? 'on direct connections' : `through PgBouncer (transaction mode, default_pool_size = ${PGBOUNCER_POOL})`;
  log('');
  log(`starting three copies ${via}…`);
  const copies: string[] = [];
  for (let index = 0; index < 3; index += 1) copies.push((await startCopy(cleanups, databaseUrl, env)).url);
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
  const admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  const { rows: connections } = await admin.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()");
  await admin.end();
  log('');
  log(`reads through HAProxy, copies ${via}, ${CONNECTIONS} connections, ${SECONDS} s, GET /v2/template/read (a cached read), load ${loadAverage()}:`);
  printTable(['copies', 'req/s', 'p50 ms', 'p99 ms', 'failed'], rows);
  log('');
  log(`ingestion through HAProxy, copies ${via}, ${CONNECTIONS / 4} connections, ${SECONDS} s, POST /v2/data/in with ${BATCH}-event batches (embedded event store, shared counters):`);
  printTable(['copies', 'events/s', 'p50 ms', 'p99 ms', 'failed'], ingestRows);
  log(
    `PostgreSQL client connections after the runs, 3 copies ${via}: ${connections[0]!.n} (DB_POOL_MAX=${POOL_MAX}; the pool opens what its load needs, plus one listening connection and the template readers' pool)`,
  );
  return [...rows, ...ingestRows].every((row) => row[4] === '0');
}

runBench(main);
