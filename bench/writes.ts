// `npm run bench:writes` (issue 53): writes, ingestion and authenticated reads, each next to a floor
// run in the same run, interleaved, on the same PostgreSQL:
//
// - ingestion, 1- and 100-event batches (events/s): POST /v2/data/in/{id} against the express + pg
//   floor of bench/ingest-and-query.ts (one multi-row INSERT per request, bench/floors.ts);
// - dataset update, status transition (Draft → ReadyToPublish), template create and alert rule
//   create (p50/p99 ms): the REST route against a bare express + pg handler doing the same SQL as the
//   gateway (the read, the write and the audit record) in one transaction;
// - a caller's read: GraphQL `{ version }` (a public field: the same work whoever asks) as an
//   anonymous caller, with a JWT and with an API key. The anonymous read is the floor: a verified
//   credential should cost nothing more.
//
// Each operation is measured cold, then warm: cold is a gateway process started for it (as
// `npm start` runs it: compiled JavaScript, production settings) and its first BENCH_COLD_SECONDS,
// next to a floor with a fresh pool; warm is BENCH_ROUNDS rounds of BENCH_DURATION seconds after
// that, gateway and floor alternating, the figure the median of the rounds. Every answer is checked
// (a 200 with the expected result); the machine's load average is printed with every operation,
// since other work on the machine moves the ratios.
//
// Settings (environment): BENCH_DURATION (default 5), BENCH_COLD_SECONDS (default 3), BENCH_ROUNDS
// (default 2), BENCH_CONNECTIONS (ingestion and reads, default 10), BENCH_WRITE_CONNECTIONS
// (writes, default 4), BENCH_ONLY (comma-separated operation names, e.g. `update,transition`),
// BENCH_NODE_FLAGS (extra node flags for the gateway, e.g. --cpu-prof).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import express from 'express';
import { SignJWT } from 'jose';
import pg from 'pg';
import { addIngestFloor } from './floors.js';
import { withTransaction } from '../src/platform/database/transaction.js';
import { temporaryFolder } from './local-gateway.js';
import {
  autocannonProblems,
  Cleanups,
  envelope,
  formatNumber,
  freePort,
  jsonHeaders,
  listenFloor,
  loadAverage,
  log,
  logMachine,
  positiveIntegerSetting,
  printTable,
  record,
  runAutocannon,
  runBench,
  SettingError,
  startCommandArgs,
  type Floor,
} from './support.js';

process.env.NODE_ENV = 'production';

const POOL_MAX = 10;
const JWT_SECRET = `bench-writes-${randomBytes(24).toString('hex')}`;
const ISSUER = 'bench-issuer';
const AUDIENCE = 'bench-gateway';
const INGEST_DATASET = 'bench-writes-ingest';
const FLOOR_INGEST_DATASET = 'bench-writes-floor-ingest';
/** Drafts seeded per side for transitions: more than any run can use. */
const TRANSITION_DRAFTS = 20_000;
const TARGETS = { ingest: 0.9, write: 1.5 };

const OPERATIONS = ['ingest-1', 'ingest-100', 'update', 'transition', 'template', 'alert-rule', 'read'] as const;
type Operation = (typeof OPERATIONS)[number];

interface Settings {
  duration: number;
  coldSeconds: number;
  rounds: number;
  connections: number;
  writeConnections: number;
}

interface Measurement {
  /** Requests per second (answers ÷ seconds). */
  rate: number;
  p50: number;
  p99: number;
  answers: number;
  problems: string[];
  /** The gateway's CPU milliseconds per answer (its own process_cpu_seconds_total over the run); gateway sides only. */
  cpuMs?: number;
}

/** One side of a comparison: how to run it for some seconds, on the gateway or on its floor. */
interface Side {
  name: string;
  eventsPerRequest?: number;
  run(url: string, seconds: number): Promise<Measurement>;
}

interface Row {
  operation: Operation;
  phase: 'cold' | 'warm';
  side: Side;
  isFloor: boolean;
  measurement: Measurement;
  load: string;
}

// ---------------------------------------------------------------------------------------------
// The gateway: one process per cold measurement, on one PostgreSQL.

interface GatewayProcess {
  url: string;
  stop(): Promise<void>;
}

async function startGatewayProcess(databaseUrl: string): Promise<GatewayProcess> {
  const port = await freePort();
  const settings = {
    DATABASE_URL: databaseUrl,
    HOST: '127.0.0.1',
    PORT: String(port),
    NODE_ENV: 'production',
    LOG_LEVEL: 'silent',
    DB_POOL_MAX: String(POOL_MAX),
    AUTH_MODE: 'jwt',
    JWT_SECRET,
    JWT_ISSUER: ISSUER,
    JWT_AUDIENCE: AUDIENCE,
    // The budgets are per caller: the bench is one caller sending thousands of calls a second.
    RATE_LIMIT_RPS: '0',
    RATE_LIMIT_INGEST_RPS: '0',
  };
  const args = [...(process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean), ...startCommandArgs()];
  const child = spawn(process.execPath, args, { env: { ...process.env, ...settings }, stdio: ['ignore', 'ignore', 'inherit'] });
  const stop = async () => {
    if (child.exitCode !== null) return;
    child.kill('SIGTERM');
    await once(child, 'exit');
  };
  const url = `http://127.0.0.1:${port}`;
  for (const started = Date.now(); ; await sleep(50)) {
    if (
      await fetch(`${url}/readyz`).then(
        (response) => response.ok,
        () => false,
      )
    )
      return { url, stop };
    if (child.exitCode !== null) throw new Error(`the gateway exited with status ${child.exitCode} before it was ready`);
    if (Date.now() - started > 60_000) {
      await stop();
      throw new Error('the gateway was not ready within 60 s');
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Requests

interface Answer {
  status: number;
  body: unknown;
}

async function send(url: string, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Answer> {
  const response = await fetch(`${url}${path}`, { method, headers: { ...jsonHeaders, ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: response.status, body: parsed };
}

/** The envelope's result, or throws naming what came back. */
function okResult(answer: Answer, what: string): Record<string, unknown> {
  const body = record(answer.body);
  if (answer.status !== 200 || (body?.responseCode !== undefined && body.responseCode !== 'OK')) {
    // The error alone (no request ids), so that the same problem is counted once.
    throw new Error(`${what}: HTTP ${answer.status}: ${JSON.stringify(body?.error ?? answer.body).slice(0, 300)}`);
  }
  return record(body?.result) ?? {};
}

function percentile(sorted: number[], percent: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.max(0, Math.ceil((percent / 100) * sorted.length) - 1)]!;
}

/**
 * `connections` loops, each sending one request after the other for `seconds` (or until `next`
 * runs out); every request is timed and checked by `next`'s own check.
 */
async function closedLoop(connections: number, seconds: number, request: (loop: number) => Promise<boolean>): Promise<Measurement> {
  const latencies: number[] = [];
  const problems = new Map<string, number>();
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: connections }, async (_, loop) => {
      while (performance.now() < deadline) {
        const sentAt = performance.now();
        try {
          if (!(await request(loop))) return;
          latencies.push(performance.now() - sentAt);
        } catch (error) {
          const problem = (error as Error).message.slice(0, 300);
          problems.set(problem, (problems.get(problem) ?? 0) + 1);
        }
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    rate: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    answers: latencies.length,
    problems: [...problems].map(([problem, count]) => `${count}× ${problem}`),
  };
}

async function throughput(url: string, seconds: number, connections: number, request: { method: string; path: string; headers: Record<string, string>; body?: string }): Promise<Measurement> {
  const result = await runAutocannon({ url, connections, duration: seconds, requests: [request], idReplacement: true, timeout: 30 });
  return {
    rate: result['2xx'] / seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    answers: result['2xx'],
    problems: autocannonProblems(result, result['2xx']),
  };
}

// ---------------------------------------------------------------------------------------------
// Data

const dataSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: { id: { type: 'string' }, ts: { type: 'string', format: 'date-time' }, amount: { type: 'number' } },
  required: ['id', 'ts'],
};

function datasetDefinition(datasetId: string) {
  return {
    dataset_id: datasetId,
    name: datasetId,
    type: 'event',
    data_schema: dataSchema,
    dataset_config: { keys_config: { timestamp_key: 'ts' }, indexing_config: { olap_store_enabled: true, lakehouse_enabled: false, cache_enabled: false } },
  };
}

function batch(size: number, requestId: string) {
  return Array.from({ length: size }, (_, n) => ({ id: `${requestId}-${n}`, ts: new Date(Date.UTC(2026, 9, 1) + n * 1_000).toISOString(), amount: n % 100 }));
}

/** Drafts straight into `datasets` (as the dashboard test seeds them): `${prefix}-<n>`, n from 1. */
async function seedDrafts(pool: pg.Pool, prefix: string, count: number): Promise<void> {
  await pool.query(
    `INSERT INTO datasets (dataset_id, stage, name, type, status, tags, version, version_key, api_version, data_schema,
                           dataset_config, transformations_config, connectors_config, denorm_config, denorm_sources, router_config, created_by, updated_by)
     SELECT $1 || '-' || n, 'draft', $1 || ' ' || n, 'event', 'Draft', '{}', 1, '1', 'v2', $2::jsonb,
            '{"keys_config":{"timestamp_key":"ts","data_key":"","partition_key":""},"indexing_config":{"olap_store_enabled":true,"lakehouse_enabled":false,"cache_enabled":false}}',
            '[]', '[]', '{"denorm_fields":[]}', '{}', json_build_object('topic', $1 || '-' || n), 'SYSTEM', 'SYSTEM'
     FROM generate_series(1, $3::int) n`,
    [prefix, JSON.stringify(dataSchema), count],
  );
}

// ---------------------------------------------------------------------------------------------
// The floors: the same SQL as the gateway's, in one transaction, behind express 5 and a pg pool.

const AUDIT_SQL = `INSERT INTO audit_records (request_id, actor, transport, api_id, operation, target_id, outcome) VALUES ($1, 'floor', 'rest', $2, $3, $4, 'success')`;

async function startWriteFloor(databaseUrl: string): Promise<Floor> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: POOL_MAX });
  pool.on('error', () => undefined);
  const app = express();
  app.disable('x-powered-by');
  addIngestFloor(app, pool, 1_000);
  const fail = (res: express.Response, status: number, message: string) => res.status(status).json({ responseCode: 'FAILED', error: { message } });

  // Dataset update: the draft read (for its version key), the guarded update, the audit record.
  app.patch('/datasets/update', express.json(), async (req, res) => {
    const { dataset_id: id, version_key: key, name } = (req.body as { request: { dataset_id: string; version_key: string; name: string } }).request;
    const versionKey = String(Date.now());
    const updated = await withTransaction(pool, async (client) => {
      const found = await client.query<{ version_key: string; status: string }>({ name: 'floor_draft', text: `SELECT * FROM datasets WHERE dataset_id = $1 AND stage = 'draft'`, values: [id] });
      if (found.rows[0]?.version_key !== key) return false;
      await client.query({
        name: 'floor_update',
        text: `UPDATE datasets SET name = $2, version_key = $3, version = version + 1, updated_by = 'floor', updated_date = now() WHERE dataset_id = $1 AND stage = 'draft' AND version_key = $4`,
        values: [id, name, versionKey, key],
      });
      await client.query({ name: 'floor_audit', text: AUDIT_SQL, values: [randomBytes(8).toString('hex'), 'api.datasets.update', 'updateDataset', id] });
      return true;
    });
    if (!updated) return fail(res, 409, 'outdated');
    res.json({ responseCode: 'OK', result: { id, version_key: versionKey } });
  });

  // Status transition Draft → ReadyToPublish: the draft read, the status update, the audit record.
  app.post('/datasets/status-transition', express.json(), async (req, res) => {
    const { dataset_id: id } = (req.body as { request: { dataset_id: string } }).request;
    const moved = await withTransaction(pool, async (client) => {
      const found = await client.query<{ version_key: string; status: string }>({ name: 'floor_draft', text: `SELECT * FROM datasets WHERE dataset_id = $1 AND stage = 'draft'`, values: [id] });
      if (found.rows[0]?.status !== 'Draft') return false;
      await client.query({
        name: 'floor_transition',
        text: `UPDATE datasets SET status = 'ReadyToPublish', updated_by = 'floor', updated_date = now() WHERE dataset_id = $1 AND stage = 'draft'`,
        values: [id],
      });
      await client.query({ name: 'floor_audit', text: AUDIT_SQL, values: [randomBytes(8).toString('hex'), 'api.datasets.status-transition', 'transitionDataset', id] });
      return true;
    });
    if (!moved) return fail(res, 400, 'not a draft');
    res.json({ responseCode: 'OK', result: { message: `Dataset status transition to ReadyToPublish successful`, dataset_id: id } });
  });

  // Template create: the name check, the insert, the audit record.
  app.post('/template/create', express.json(), async (req, res) => {
    const { template_name: name, query, query_type: type } = (req.body as { request: { template_name: string; query: string; query_type: string } }).request;
    const id = name.toLowerCase().replace(/[^a-z0-9]+/g, '-');
    const made = await withTransaction(pool, async (client) => {
      const found = await client.query({ name: 'floor_template_name', text: 'SELECT template_id FROM query_templates WHERE template_name = $1 OR template_id = $2', values: [name, id] });
      if (found.rows.length > 0) return false;
      await client.query({
        name: 'floor_template_insert',
        text: `INSERT INTO query_templates (template_id, template_name, query, query_type, created_by, updated_by) VALUES ($1, $2, $3, $4, 'floor', 'floor')`,
        values: [id, name, query, type],
      });
      await client.query({ name: 'floor_audit', text: AUDIT_SQL, values: [randomBytes(8).toString('hex'), 'api.query.template.create', 'createTemplate', id] });
      return true;
    });
    if (!made) return fail(res, 409, 'exists');
    res.json({ responseCode: 'OK', result: { template_id: id, template_name: name } });
  });

  // Alert rule create: the name check, the insert, the audit record.
  app.post('/alerts/create', express.json(), async (req, res) => {
    const rule = req.body as { name: string; description: string; category: string; severity: string; labels: Record<string, string> };
    const id = crypto.randomUUID();
    const made = await withTransaction(pool, async (client) => {
      const found = await client.query({ name: 'floor_rule_name', text: 'SELECT id FROM alert_rules WHERE name = $1', values: [rule.name] });
      if (found.rows.length > 0) return false;
      await client.query({
        name: 'floor_rule_insert',
        text: `INSERT INTO alert_rules (id, name, manager, status, description, metric, operator, thresholds, expression, severity, category, evaluation_interval_ms, pending_for_ms, labels, channel_ids, created_by, updated_by)
               VALUES ($1, $2, 'embedded', 'draft', $3, 'up', 'gt', '{0}', '(up) > 0', $4, $5, 10000, 60000, $6, '{}', 'floor', 'floor')`,
        values: [id, rule.name, rule.description, rule.severity, rule.category, JSON.stringify(rule.labels)],
      });
      await client.query({ name: 'floor_audit', text: AUDIT_SQL, values: [randomBytes(8).toString('hex'), 'api.alert.create', 'createAlertRule', id] });
      return true;
    });
    if (!made) return fail(res, 409, 'exists');
    res.json({ responseCode: 'OK', result: { id } });
  });

  // A failing statement is a problem the bench reports, with its message.
  app.use((error: Error, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    res.status(500).json({ responseCode: 'FAILED', error: { message: error.message } });
  });
  return listenFloor(app, pool);
}

// ---------------------------------------------------------------------------------------------
// The operations, each as a gateway side and a floor side.

interface Credentials {
  jwt: string;
  apiKey: string;
}

let sequence = 0;
/** A name no earlier request of this run used (letters, digits and single spaces, as template names must be). */
const unique = (what: string) => `${what} ${process.pid} ${++sequence}`;

function ingestSides(size: number, connections: number, authorization: Record<string, string>): [Side, Side] {
  const body = JSON.stringify(envelope('api.data.in', 'bench-[<id>]', { data: batch(size, '[<id>]') }));
  const label = size === 1 ? 'one event per request' : `${size}-event batches`;
  return [
    {
      name: `REST ingest, ${label}`,
      eventsPerRequest: size,
      run: (url, seconds) => throughput(url, seconds, connections, { method: 'POST', path: `/v2/data/in/${INGEST_DATASET}`, headers: { ...jsonHeaders, ...authorization }, body }),
    },
    {
      name: `floor ingest, ${label}`,
      eventsPerRequest: size,
      run: (url, seconds) => throughput(url, seconds, connections, { method: 'POST', path: `/data/in/${FLOOR_INGEST_DATASET}`, headers: jsonHeaders, body }),
    },
  ];
}

/** Each loop updates a draft of its own, carrying its version key from answer to answer. */
function updateSides(connections: number, authorization: Record<string, string>): [Side, Side] {
  const side = (name: string, isFloor: boolean): Side => ({
    name,
    async run(url, seconds) {
      const keys = Array.from({ length: connections }, () => '1');
      const prefix = isFloor ? 'bench-floor-update' : 'bench-update';
      // Start from the drafts' version keys as they are now (an earlier round changed them).
      for (let loop = 0; loop < connections; loop++) keys[loop] = await currentVersionKey(`${prefix}-${loop + 1}`);
      return closedLoop(connections, seconds, async (loop) => {
        const request = { dataset_id: `${prefix}-${loop + 1}`, version_key: keys[loop], name: unique('renamed') };
        const path = isFloor ? '/datasets/update' : '/v2/datasets/update';
        const result = okResult(await send(url, 'PATCH', path, isFloor ? {} : authorization, envelope('api.datasets.update', 'bench-update', { request })), 'update');
        if (typeof result.version_key !== 'string' || result.version_key === request.version_key) throw new Error(`update: no new version_key in ${JSON.stringify(result)}`);
        keys[loop] = result.version_key;
        return true;
      });
    },
  });
  return [side('REST dataset update', false), side('floor dataset update', true)];
}

let versionKeys: (datasetId: string) => Promise<string> = () => Promise.reject(new Error('no database yet'));
const currentVersionKey = (datasetId: string) => versionKeys(datasetId);

/** Every request moves a draft nobody moved yet from Draft to ReadyToPublish. */
function transitionSides(connections: number, authorization: Record<string, string>): [Side, Side] {
  const side = (name: string, isFloor: boolean): Side => {
    let next = 0;
    const prefix = isFloor ? 'bench-floor-draft' : 'bench-draft';
    return {
      name,
      run: (url, seconds) =>
        closedLoop(connections, seconds, async () => {
          if (next >= TRANSITION_DRAFTS) return false;
          const id = `${prefix}-${++next}`;
          const path = isFloor ? '/datasets/status-transition' : '/v2/datasets/status-transition';
          const result = okResult(
            await send(url, 'POST', path, isFloor ? {} : authorization, envelope('api.datasets.status-transition', 'bench-transition', { request: { dataset_id: id, status: 'ReadyToPublish' } })),
            'transition',
          );
          if (result.dataset_id !== id) throw new Error(`transition: answered ${JSON.stringify(result)}`);
          return true;
        }),
    };
  };
  return [side('REST status transition', false), side('floor status transition', true)];
}

const TEMPLATE_SQL = "SELECT COUNT(*) FROM {{DATASET}} WHERE __time >= TIMESTAMP '{{STARTDATE}}' AND __time < TIMESTAMP '{{ENDDATE}}' LIMIT {{LIMIT}}";

function templateSides(connections: number, authorization: Record<string, string>): [Side, Side] {
  const side = (name: string, isFloor: boolean): Side => ({
    name,
    run: (url, seconds) =>
      closedLoop(connections, seconds, async () => {
        const request = { template_name: unique(isFloor ? 'Floor template' : 'Bench template'), query_type: 'sql', query: TEMPLATE_SQL };
        const path = isFloor ? '/template/create' : '/v2/template/create';
        const result = okResult(await send(url, 'POST', path, isFloor ? {} : authorization, envelope('api.query.template.create', 'bench-template', { request })), 'template create');
        if (typeof result.template_id !== 'string') throw new Error(`template create: answered ${JSON.stringify(result)}`);
        return true;
      }),
  });
  return [side('REST template create', false), side('floor template create', true)];
}

function alertRuleSides(connections: number, authorization: Record<string, string>): [Side, Side] {
  const side = (name: string, isFloor: boolean): Side => ({
    name,
    run: (url, seconds) =>
      closedLoop(connections, seconds, async () => {
        const rule = {
          name: unique(isFloor ? 'floor rule' : 'bench rule').replaceAll(' ', '-'),
          manager: 'embedded',
          description: 'Bench rule',
          category: 'processing',
          severity: 'critical',
          frequency: '10s',
          interval: '1m',
          labels: { team: 'data' },
          metadata: { queryBuilderContext: { metric: 'up', operator: 'gt', threshold: [0] } },
          notification: { channels: [] },
          context: { alertType: 'CUSTOM' },
        };
        const result = okResult(await send(url, 'POST', isFloor ? '/alerts/create' : '/alerts/v1/create', isFloor ? {} : authorization, rule), 'alert rule create');
        if (typeof result.id !== 'string') throw new Error(`alert rule create: answered ${JSON.stringify(result)}`);
        return true;
      }),
  });
  return [side('REST alert rule create', false), side('floor alert rule create', true)];
}

/** `{ version }`, a public field: anonymous (the floor), with a JWT, with an API key. */
function readSides(connections: number, credentials: Credentials): Side[] {
  const body = JSON.stringify({ query: '{ version }' });
  const side = (name: string, headers: Record<string, string>): Side => ({
    name,
    run: (url, seconds) => throughput(url, seconds, connections, { method: 'POST', path: '/graphql', headers: { ...jsonHeaders, ...headers }, body }),
  });
  return [
    side('GraphQL { version }, anonymous', {}),
    side('GraphQL { version }, JWT', { authorization: `Bearer ${credentials.jwt}` }),
    side('GraphQL { version }, API key', { 'x-api-key': credentials.apiKey }),
  ];
}

// ---------------------------------------------------------------------------------------------
// Running and reporting

function eventsRate(row: Row): number {
  return row.measurement.rate * (row.side.eventsPerRequest ?? 1);
}

function isThroughput(operation: Operation): boolean {
  return operation === 'ingest-1' || operation === 'ingest-100' || operation === 'read';
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The median of each figure over the rounds, the problems of all. */
function combine(measurements: Measurement[]): Measurement {
  const cpu = measurements.flatMap((m) => (m.cpuMs === undefined ? [] : [m.cpuMs]));
  return {
    rate: median(measurements.map((m) => m.rate)),
    p50: median(measurements.map((m) => m.p50)),
    p99: median(measurements.map((m) => m.p99)),
    answers: measurements.reduce((sum, m) => sum + m.answers, 0),
    problems: measurements.flatMap((m) => m.problems),
    ...(cpu.length > 0 ? { cpuMs: median(cpu) } : {}),
  };
}

/** The gateway process's CPU seconds so far, from its own /metrics. */
async function gatewayCpuSeconds(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((each) => each.startsWith('process_cpu_seconds_total '));
  return line === undefined ? Number.NaN : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/** Runs a gateway side with the gateway's CPU per answer measured around it (a figure other work on the machine moves less than req/s). */
async function runOnGateway(side: Side, url: string, seconds: number): Promise<Measurement> {
  const before = await gatewayCpuSeconds(url);
  const measurement = await side.run(url, seconds);
  const cpuMs = ((await gatewayCpuSeconds(url)) - before) * 1000;
  return measurement.answers > 0 && Number.isFinite(cpuMs) ? { ...measurement, cpuMs: cpuMs / measurement.answers } : measurement;
}

/** The ratio a target speaks of: rate ÷ floor's rate for throughput, p50 ÷ floor's p50 for writes. */
function ratioToFloor(row: Row, floor: Row): number {
  return isThroughput(row.operation) ? eventsRate(row) / eventsRate(floor) : row.measurement.p50 / floor.measurement.p50;
}

function verdict(row: Row, ratio: number): string {
  if (row.operation === 'ingest-1' || row.operation === 'ingest-100') return ratio >= TARGETS.ingest ? `≥ ${TARGETS.ingest}×: met` : `≥ ${TARGETS.ingest}×: MISSED`;
  if (row.operation === 'update' || row.operation === 'transition' || row.operation === 'template') return ratio <= TARGETS.write ? `≤ ${TARGETS.write}×: met` : `≤ ${TARGETS.write}×: MISSED`;
  if (row.operation === 'read') return ratio >= 0.9 ? 'costs what anonymous does' : 'COSTS MORE than anonymous';
  return '';
}

async function main(): Promise<boolean> {
  const settings: Settings = {
    duration: positiveIntegerSetting('BENCH_DURATION', 5),
    coldSeconds: positiveIntegerSetting('BENCH_COLD_SECONDS', 3),
    rounds: positiveIntegerSetting('BENCH_ROUNDS', 2),
    connections: positiveIntegerSetting('BENCH_CONNECTIONS', 10),
    writeConnections: positiveIntegerSetting('BENCH_WRITE_CONNECTIONS', 4),
  };
  const only = (process.env.BENCH_ONLY ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = only.filter((name) => !(OPERATIONS as readonly string[]).includes(name));
  if (unknown.length > 0) throw new SettingError(`BENCH_ONLY: unknown operation(s) ${unknown.join(', ')}; known: ${OPERATIONS.join(', ')}`);
  const operations = OPERATIONS.filter((operation) => only.length === 0 || only.includes(operation));

  logMachine();
  log(
    `settings: cold ${settings.coldSeconds} s on a gateway started for it, then ${settings.rounds} warm round(s) of ${settings.duration} s, gateway and floor alternating; ` +
      `ingestion and reads ${settings.connections} connections (autocannon, 1 worker thread), writes ${settings.writeConnections} requests at a time (each timed and checked); ` +
      `gateway and floor pools ${POOL_MAX}; gateway AUTH_MODE=jwt (writes as an admin JWT), rate limits off, NODE_ENV=production; everything on this machine`,
  );

  const cleanups = new Cleanups();
  let succeeded = false;
  try {
    const { startEmbeddedPostgres } = await import('../src/platform/database/embedded.js');
    const { hashApiKey } = await import('../src/auth/api-keys.js');
    log('starting embedded PostgreSQL…');
    const folder = await temporaryFolder('gateway-bench-writes-');
    cleanups.push('temporary folder', () => folder.remove());
    const cluster = await startEmbeddedPostgres({ dataDir: `${folder.path}/postgres`, port: 0, database: 'bench' });
    cleanups.push('PostgreSQL', () => cluster.stop());

    // The first gateway applies the migrations; seeding goes through its API where it can.
    let gateway = await startGatewayProcess(cluster.url);
    cleanups.push('gateway', () => gateway.stop());
    const pool = new pg.Pool({ connectionString: cluster.url, max: 2 });
    pool.on('error', () => undefined);
    cleanups.push('bench database pool', () => pool.end());
    versionKeys = async (datasetId) =>
      String((await pool.query<{ version_key: string }>(`SELECT version_key FROM datasets WHERE dataset_id = $1 AND stage = 'draft'`, [datasetId])).rows[0]?.version_key);

    const jwt = await new SignJWT({ roles: ['admin'] })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('bench-admin')
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setExpirationTime('2h')
      .sign(new TextEncoder().encode(JWT_SECRET));
    const apiKey = `dpg_${randomBytes(32).toString('base64url')}`;
    await pool.query(`INSERT INTO api_keys (id, name, key_hash, key_prefix, roles, created_by) VALUES (gen_random_uuid(), 'bench', $1, $2, '{admin}', 'bench')`, [
      hashApiKey(apiKey),
      apiKey.slice(0, 10),
    ]);
    const credentials: Credentials = { jwt, apiKey };
    const admin = { authorization: `Bearer ${jwt}` };

    log('seeding: a Live dataset for ingestion, drafts for updates and transitions…');
    const api = (method: string, path: string, apiId: string, request: unknown, what: string) =>
      send(gateway.url, method, path, admin, envelope(apiId, 'bench-seed', { request })).then((answer) => okResult(answer, what));
    await api('POST', '/v2/datasets/create', 'api.datasets.create', datasetDefinition(INGEST_DATASET), 'creating the ingestion dataset');
    for (const status of ['ReadyToPublish', 'Live']) {
      await api('POST', '/v2/datasets/status-transition', 'api.datasets.status-transition', { dataset_id: INGEST_DATASET, status }, `${INGEST_DATASET} to ${status}`);
    }
    await seedDrafts(pool, 'bench-update', settings.writeConnections);
    await seedDrafts(pool, 'bench-floor-update', settings.writeConnections);
    await seedDrafts(pool, 'bench-draft', TRANSITION_DRAFTS);
    await seedDrafts(pool, 'bench-floor-draft', TRANSITION_DRAFTS);
    await pool.query('ANALYZE');

    const sidesOf = (operation: Operation): Side[] => {
      switch (operation) {
        case 'ingest-1':
          return ingestSides(1, settings.connections, admin);
        case 'ingest-100':
          return ingestSides(100, settings.connections, admin);
        case 'update':
          return updateSides(settings.writeConnections, admin);
        case 'transition':
          return transitionSides(settings.writeConnections, admin);
        case 'template':
          return templateSides(settings.writeConnections, admin);
        case 'alert-rule':
          return alertRuleSides(settings.writeConnections, admin);
        case 'read':
          return readSides(settings.connections, credentials);
      }
    };

    const rows: Row[] = [];
    for (const operation of operations) {
      const sides = sidesOf(operation);
      // The read's floor is its anonymous side, served by the gateway itself.
      const floorSide = operation === 'read' ? sides[0]! : sides[1]!;
      const onFloor = (side: Side) => operation !== 'read' && side === floorSide;
      log(`${operation}: a fresh gateway and floor (load average ${loadAverage()})…`);
      await gateway.stop();
      gateway = await startGatewayProcess(cluster.url);
      const floor = await startWriteFloor(cluster.url);
      const cold = new Map<Side, Measurement>();
      const run = (side: Side, seconds: number) => (onFloor(side) ? side.run(floor.url, seconds) : runOnGateway(side, gateway.url, seconds));
      for (const side of sides) cold.set(side, await run(side, settings.coldSeconds));
      const warm = new Map<Side, Measurement[]>(sides.map((side) => [side, []]));
      for (let round = 0; round < settings.rounds; round++) {
        for (const side of sides) warm.get(side)!.push(await run(side, settings.duration));
      }
      await floor.stop();
      const load = loadAverage();
      for (const side of sides) {
        rows.push({ operation, phase: 'cold', side, isFloor: side === floorSide, measurement: cold.get(side)!, load });
        rows.push({ operation, phase: 'warm', side, isFloor: side === floorSide, measurement: combine(warm.get(side)!), load });
      }
      for (const side of sides) for (const problem of [...cold.get(side)!.problems, ...warm.get(side)!.flatMap((m) => m.problems)]) log(`  ! ${side.name}: ${problem}`);
    }

    log('');
    const table = rows.map((row) => {
      const floor = rows.find((other) => other.operation === row.operation && other.phase === row.phase && other.isFloor)!;
      const ratio = ratioToFloor(row, floor);
      const { measurement } = row;
      return [
        `${row.side.name} (${row.phase})`,
        formatNumber(measurement.rate, 0),
        row.side.eventsPerRequest ? formatNumber(eventsRate(row), 0) : '-',
        formatNumber(measurement.p50, 2),
        formatNumber(measurement.p99, 2),
        formatNumber(measurement.answers, 0),
        measurement.cpuMs === undefined ? '-' : formatNumber(measurement.cpuMs, 2),
        row.isFloor ? 'floor' : `${formatNumber(ratio, 2)}×`,
        row.isFloor ? '' : verdict(row, ratio),
        row.load,
      ];
    });
    printTable(['scenario', 'req/s', 'events/s', 'p50 ms', 'p99 ms', 'answers', 'gateway CPU ms', 'vs floor', 'target', 'load after'], table);
    log('');
    log(
      "vs floor: ingestion and reads events/s (req/s) ÷ the floor's; writes p50 ÷ the floor's p50 (the write floors run the same SQL in one transaction). " +
        "The reads' floor is the anonymous caller on the same gateway. gateway CPU ms: the gateway process's CPU per answer over the run (its /metrics; the floors run in this process). Latencies: autocannon's for ingestion and reads (whole ms), each request timed for writes. " +
        `Warm figures are the median of ${settings.rounds} round(s). load after: the 1/5/15-minute load average when the operation ended (above the CPU count, other work competed).`,
    );
    const problems = rows.flatMap((row) => row.measurement.problems.map((problem) => `${row.side.name} (${row.phase}): ${problem}`));
    if (problems.length > 0) {
      log(`FAILED: ${problems.length} problem(s):`);
      for (const problem of problems) log(`  ${problem}`);
    } else {
      log('checks: every answer was a 200 with the expected result (ingestion: autocannon counted no non-2xx, error or timeout).');
      succeeded = true;
    }
  } finally {
    if (!(await cleanups.runAll())) succeeded = false;
  }
  return succeeded;
}

runBench(main);
