// Part of `npm run bench` (or `node --import tsx bench/ingest-and-query.ts` alone): batch ingestion
// into the embedded event store and template queries over a million embedded events, each next to
// a hand-written express + pg "floor" that does the same work with nothing around it.
//
// Ingestion (issue 5): POST /v2/data/in/{dataset_id} with batches of 1, 100 and 1,000 events, into a
// Live event dataset without dedup or validation (the pure throughput case) and into one with dedup
// by id and strict validation (their cost); the floor inserts the same rows into `events` with one
// multi-row INSERT per request. autocannon gives every request ids of its own ([<id>] in the body),
// so nothing is a duplicate. The event store is emptied after each warm-up, so every measured run
// starts from the same table; afterwards every acknowledged request must be stored whole, with the
// event time taken from `ts`, and nothing recorded as failed. The figure compared is events/s.
//
// Queries (issue 6): BENCH_QUERY_EVENTS events (default 1,000,000) spread evenly over 30 days are
// written straight into `events` with INSERT ... SELECT generate_series (one per CPU, side by side)
// for a Live dataset imported and published through the API (so its view exists), then ANALYZEd.
// Two templates run through POST /v2/template/query/{id} over the 30 days: a SQL aggregate by hour
// (TIME_FLOOR, COUNT, SUM) and a JSON timeseries (granularity hour); the floor runs the same
// aggregate written by hand on `events`. Requests go one after the other (queries take seconds on
// a small machine), each timed, and every answer is compared with the 720 buckets computed here.
//
// One run starts an embedded PostgreSQL in a fresh temporary folder, the gateway against it
// (production settings, silent logs) and the floor on the same database; everything it started is
// stopped and the folder removed, also when something fails or on Ctrl-C. The exit status says
// whether every check passed; whether the ingestion target (1,000-event batches at 0.9× the
// floor's events/s or better) was met is printed, not part of the status.
//
// Settings (environment): BENCH_DURATION seconds per scenario (default 5; queries also wait for at
// least 3 answers), BENCH_CONNECTIONS concurrent ingestion connections (default 10),
// BENCH_QUERY_CONNECTIONS queries at a time (default 1), BENCH_QUERY_EVENTS (default 1000000).
import { isDeepStrictEqual } from 'node:util';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type autocannon from 'autocannon';
import express from 'express';
import pg from 'pg';
import {
  autocannonProblems,
  type BenchRequest,
  CLIENT_WORKERS,
  Cleanups,
  envelope,
  type Floor,
  formatNumber,
  jsonHeaders,
  listenFloor,
  loadAverage,
  log,
  logMachine,
  positiveIntegerSetting,
  postEnvelope,
  printTable as printRows,
  record,
  reportFailures,
  runAutocannon as runAutocannonWith,
  runBench,
  SettingError,
  startBenchGateway,
} from './support.js';
import { addIngestFloor } from './floors.js';

// The gateway runs as in production. Libraries read NODE_ENV from the environment when they load
// (graphql-js, for one, skips its development-only checks in production), so it is set here and
// the gateway's modules are imported only afterwards, in main().
process.env.NODE_ENV = 'production';

const BATCH_SIZES = [1, 100, 1_000];
/** The ingestion target (issue 17, raised from issue 5's 0.7): gateway events/s for this batch size at least TARGET_RATIO × the floor's. */
const TARGET_BATCH = 1_000;
const TARGET_RATIO = 0.9;
const WARMUP_SECONDS = 1;
/** Database connections of the gateway (its default DB_POOL_MAX) and of the floor. */
const POOL_MAX = 10;
/** Seconds autocannon waits for one answer. */
const REQUEST_TIMEOUT_SECONDS = 30;
/** Queries take seconds each: every query scenario gets at least this many answers per connection, however long they take. */
const MIN_LATENCY_ANSWERS = 3;

const PLAIN_DATASET = 'bench-ingest-plain';
const CHECKED_DATASET = 'bench-ingest-checked';
const QUERY_DATASET = 'bench-query-events';
/** The floor stores its rows under a dataset id of its own. */
const FLOOR_DATASET = 'bench-ingest-floor';
const DEDUP_PERIOD_SECONDS = 3_600;

/** The query data: DAYS days from QUERY_START, one event every stepMs, `amount` = n mod 100. */
const QUERY_START = '2026-10-01T00:00:00.000Z';
const DAYS = 30;
const RANGE_MS = DAYS * 86_400_000;
const HOUR_MS = 3_600_000;
const HOURS = RANGE_MS / HOUR_MS;
const QUERY_END = new Date(Date.parse(QUERY_START) + RANGE_MS).toISOString();
const QUERY_LIMIT = 1_000;

const CHANNELS = ['web', 'app', 'api'];
const CITIES = ['Pune', 'Delhi', 'Agra', 'Goa', 'Kochi', 'Surat', 'Patna', 'Indore'];
const USERS = 50;

interface Scenario {
  name: string;
  /** Scenarios with the same operation are compared with the floor scenario of that operation. */
  operation: string;
  isFloor: boolean;
  url: string;
  /** The request sent; ingestion bodies hold [<id>] where autocannon puts an id of each request's own. */
  request: BenchRequest;
  /**
   * throughput: autocannon keeps `connections` requests in flight (after a warm-up);
   * latency: `connections` loops each send one request after the other, every answer checked.
   */
  mode: 'throughput' | 'latency';
  connections: number;
  /** Events one request carries (ingestion), for events/s. */
  eventsPerRequest?: number;
  /** Sends the request once and checks the answer (and for ingestion what was stored); returns the problems. */
  probe(): Promise<string[]>;
  /** Latency mode: the problem with one answer, if any. */
  check?(answer: Answer): string | undefined;
  /** Between the warm-up and the measured run. */
  reset?(): Promise<void>;
  /** After the measured run: problems with what it left behind. */
  verify?(measurement: Measurement): Promise<string[]>;
}

interface Answer {
  status: number;
  body: unknown;
  text: string;
}

interface Measurement {
  requestsPerSecond: number;
  /** Latency of 200 answers, ms. */
  p50: number;
  p99: number;
  /** Answers the percentiles are taken from. */
  ok: number;
  non2xx: number;
  problems: string[];
}

interface Outcome {
  scenario: Scenario;
  measurement: Measurement;
  problems: string[];
}

// ---------------------------------------------------------------------------------------------
// Data

const dataSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: {
    id: { type: 'string' },
    ts: { type: 'string', format: 'date-time' },
    channel: { type: 'string' },
    amount: { type: 'number' },
    user: { type: 'object', properties: { id: { type: 'string' }, city: { type: 'string' } }, additionalProperties: false },
  },
  required: ['id', 'ts'],
  additionalProperties: false,
};

/** A Live event dataset whose event time is `ts`; `checked`: dedup by `id` and strict validation. */
function datasetDefinition(datasetId: string, checked: boolean) {
  return {
    dataset_id: datasetId,
    name: datasetId,
    type: 'event',
    api_version: 'v2',
    tags: ['bench'],
    data_schema: dataSchema,
    dataset_config: {
      keys_config: { data_key: '', partition_key: '', timestamp_key: 'ts' },
      indexing_config: { olap_store_enabled: true, lakehouse_enabled: false, cache_enabled: false },
      cache_config: { cache_db_host: 'localhost', cache_db_port: 6379, cache_db: 0 },
      file_upload_path: [],
    },
    validation_config: { validate: checked, mode: 'Strict' },
    dedup_config: { drop_duplicates: checked, dedup_key: 'id', dedup_period: DEDUP_PERIOD_SECONDS },
    sample_data: { id: 'event-1', ts: QUERY_START, channel: 'web', amount: 1, user: { id: 'user-1', city: 'Pune' } },
  };
}

/** Event `n` of a batch; `id` holds the request's own id where autocannon puts it. */
function batchEvent(n: number, requestId: string) {
  return {
    id: `${requestId}-${n}`,
    ts: new Date(Date.parse(QUERY_START) + n * 1_000).toISOString(),
    channel: CHANNELS[n % CHANNELS.length]!,
    amount: n % 100,
    user: { id: `user-${n % USERS}`, city: CITIES[n % CITIES.length]! },
  };
}

function batchEvents(size: number, requestId: string) {
  return Array.from({ length: size }, (_, n) => batchEvent(n, requestId));
}

async function publishDataset(gatewayUrl: string, datasetId: string, checked: boolean): Promise<void> {
  await postEnvelope(gatewayUrl, '/v2/datasets/import', 'api.datasets.import', datasetDefinition(datasetId, checked), datasetId);
  for (const status of ['ReadyToPublish', 'Live']) {
    await postEnvelope(gatewayUrl, '/v2/datasets/status-transition', 'api.datasets.status-transition', { dataset_id: datasetId, status }, `${datasetId} to ${status}`);
  }
}

const SQL_TEMPLATE =
  'SELECT TIME_FLOOR(__time, {{AGGREGATIONLEVEL}}) AS "__time", COUNT(*) AS "events", SUM("amount") AS "amount" FROM {{DATASET}} ' +
  "WHERE __time >= TIMESTAMP '{{STARTDATE}}' AND __time < TIMESTAMP '{{ENDDATE}}' GROUP BY 1 ORDER BY 1 LIMIT {{LIMIT}}";
const JSON_TEMPLATE = {
  queryType: 'timeseries',
  dataSource: '{{DATASET}}',
  intervals: ['{{STARTDATE}}/{{ENDDATE}}'],
  granularity: 'hour',
  aggregations: [
    { type: 'count', name: 'events' },
    { type: 'doubleSum', name: 'amount', fieldName: 'amount' },
  ],
};

async function createTemplate(gatewayUrl: string, name: string, queryType: 'sql' | 'json', query: unknown): Promise<string> {
  const created = await postEnvelope(gatewayUrl, '/v2/template/create', 'api.query.template.create', { template_name: name, query_type: queryType, query }, name);
  if (typeof created.template_id !== 'string') throw new Error(`creating template ${name}: no template_id in ${JSON.stringify(created)}`);
  return created.template_id;
}

/** Milliseconds between two loaded events: as many as fit evenly into the 30 days. */
function loadStepMs(count: number): number {
  return Math.floor(RANGE_MS / count);
}

/**
 * Writes `count` events of the query dataset straight into the event store, `parts` INSERT ... SELECT
 * generate_series running side by side (one per connection), then ANALYZE. Same shape as the
 * ingested events, one msgid per 1,000 as if they had come in batches; `ts` is PostgreSQL's ISO
 * text of the event time.
 */
async function loadQueryEvents(pool: pg.Pool, count: number, parts: number): Promise<void> {
  const cities = `ARRAY[${CITIES.map((city) => `'${city}'`).join(', ')}]`;
  const insert =
    `INSERT INTO events (dataset_id, event_time, arrival_time, msgid, payload) ` +
    `SELECT $1, t, now(), 'bench-load-' || (n / 1000), json_build_object('id', 'load-' || n, 'ts', t, 'channel', (ARRAY['web', 'app', 'api'])[n % 3 + 1], 'amount', n % 100, ` +
    `'user', json_build_object('id', 'user-' || (n % ${USERS}), 'city', (${cities})[n % ${CITIES.length} + 1]))::jsonb ` +
    `FROM generate_series($2::bigint, $3::bigint) AS n, LATERAL (SELECT $4::timestamptz + n * $5::bigint * interval '1 millisecond' AS t) AS at`;
  await Promise.all(
    Array.from({ length: parts }, (_, part) => pool.query(insert, [QUERY_DATASET, Math.floor((count * part) / parts), Math.floor((count * (part + 1)) / parts) - 1, QUERY_START, loadStepMs(count)])),
  );
  await pool.query('ANALYZE events');
}

interface HourBucket {
  time: string;
  events: number;
  amount: number;
}

/** What every hourly query must answer for the loaded events. */
function expectedHours(count: number): HourBucket[] {
  const step = loadStepMs(count);
  const start = Date.parse(QUERY_START);
  const events = new Array<number>(HOURS).fill(0);
  const amounts = new Array<number>(HOURS).fill(0);
  for (let n = 0; n < count; n++) {
    const hour = Math.floor((n * step) / HOUR_MS);
    events[hour]! += 1;
    amounts[hour]! += n % 100;
  }
  return events.flatMap((eventCount, hour) => (eventCount > 0 ? [{ time: new Date(start + hour * HOUR_MS).toISOString(), events: eventCount, amount: amounts[hour]! }] : []));
}

// ---------------------------------------------------------------------------------------------
// The floor: the same rows and the same SQL behind plain express 5 and a pg pool, minimal envelopes.

async function startFloor(databaseUrl: string, maxBatch: number): Promise<Floor> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: POOL_MAX });
  pool.on('error', () => undefined);
  const app = express();
  app.disable('x-powered-by');
  addIngestFloor(app, pool, maxBatch);

  // The hourly aggregate as one would write it by hand on the event store.
  app.post('/query/hourly', express.json(), async (req, res) => {
    const body = req.body as { startdate: string; enddate: string; dataset: string; limit: number };
    const found = await pool.query<{ __time: Date; events: string; amount: number }>({
      name: 'floor_hourly',
      text:
        `SELECT date_trunc('hour', event_time, 'UTC') AS "__time", count(*) AS events, sum((payload ->> 'amount')::float8) AS amount ` +
        `FROM events WHERE dataset_id = $1 AND event_time >= $2 AND event_time < $3 GROUP BY 1 ORDER BY 1 LIMIT $4`,
      values: [body.dataset, body.startdate, body.enddate, body.limit],
    });
    res.json({ result: found.rows.map((row) => ({ __time: row.__time.toISOString(), events: Number(row.events), amount: row.amount })) });
  });

  return listenFloor(app, pool);
}

// ---------------------------------------------------------------------------------------------
// Checks

/** JSON with object keys sorted, so a jsonb payload (which reorders keys) compares with what was sent. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => {
    const object = record(inner);
    return object
      ? Object.fromEntries(
          Object.keys(object)
            .sort()
            .map((key) => [key, object[key]]),
        )
      : inner;
  });
}

async function send(url: string, request: BenchRequest): Promise<Answer> {
  const response = await fetch(`${url}${request.path}`, { method: request.method, headers: request.headers, body: request.body });
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, body, text };
}

/** The result of a gateway success envelope, or the problem with the answer. */
function gatewayResult(answer: Answer): { result?: unknown; problem?: string } {
  if (answer.status !== 200) return { problem: `HTTP ${answer.status}: ${answer.text.slice(0, 300)}` };
  const body = record(answer.body);
  if (body?.responseCode !== 'OK') return { problem: `responseCode ${JSON.stringify(body?.responseCode)}: ${JSON.stringify(body?.error)}` };
  return { result: body.result };
}

function floorResult(answer: Answer): { result?: unknown; problem?: string } {
  if (answer.status !== 200) return { problem: `HTTP ${answer.status}: ${answer.text.slice(0, 300)}` };
  return { result: record(answer.body)?.result };
}

/** Waits until nothing more lands in the event store (requests still running when autocannon stopped). */
async function settle(pool: pg.Pool): Promise<void> {
  let last = -1;
  for (let attempt = 0; attempt < 100; attempt++) {
    const found = await pool.query<{ rows: string }>('SELECT count(*) AS rows FROM events');
    const rows = Number(found.rows[0]?.rows);
    if (rows === last) return;
    last = rows;
    await sleep(300);
  }
}

async function emptyEventStore(pool: pg.Pool): Promise<void> {
  await settle(pool);
  await pool.query('TRUNCATE events, failed_events, event_dedup');
}

// ---------------------------------------------------------------------------------------------
// Scenarios

interface Servers {
  gatewayUrl: string;
  floorUrl: string;
  /** The bench's own connections, for loading and checking. */
  pool: pg.Pool;
  connections: number;
  queryConnections: number;
}

function ingestScenario(servers: Servers, kind: 'plain' | 'checked' | 'floor', size: number): Scenario {
  const { pool } = servers;
  const isFloor = kind === 'floor';
  const url = isFloor ? servers.floorUrl : servers.gatewayUrl;
  const datasetId = kind === 'plain' ? PLAIN_DATASET : kind === 'checked' ? CHECKED_DATASET : FLOOR_DATASET;
  const request = (requestId: string): BenchRequest => ({
    method: 'POST',
    path: isFloor ? `/data/in/${datasetId}` : `/v2/data/in/${datasetId}`,
    headers: jsonHeaders,
    body: JSON.stringify(envelope('api.data.in', `bench-${requestId}`, { data: batchEvents(size, requestId) })),
  });
  const label = `${formatNumber(size, 0)}-event batches`;

  return {
    name: isFloor ? `floor ingest, ${label}` : `REST ingest${kind === 'checked' ? ' +dedup+validation' : ''}, ${label}`,
    operation: `ingest ${size}`,
    isFloor,
    url,
    request: request('[<id>]'),
    mode: 'throughput',
    connections: servers.connections,
    eventsPerRequest: size,
    async probe() {
      const requestId = `probe-${kind}-${size}`;
      const sent = batchEvents(size, requestId);
      const { result, problem } = (isFloor ? floorResult : gatewayResult)(await send(url, request(requestId)));
      if (problem) return [problem];
      if (record(result)?.message !== 'Data ingested successfully') return [`unexpected result ${JSON.stringify(result)?.slice(0, 200)}`];
      const stored = await pool.query<{ dataset_id: string; event_time: Date; payload: Record<string, unknown> }>('SELECT dataset_id, event_time, payload FROM events WHERE msgid = $1', [
        `bench-${requestId}`,
      ]);
      if (stored.rows.length !== size) return [`${stored.rows.length} events stored for the request, expected ${size}`];
      const byId = new Map(stored.rows.map((row) => [row.payload.id, row]));
      for (const event of sent) {
        const row = byId.get(event.id);
        if (!row) return [`event ${event.id} was not stored`];
        if (row.dataset_id !== datasetId) return [`event ${event.id} stored under dataset ${row.dataset_id}`];
        if (row.event_time.toISOString() !== event.ts) return [`event ${event.id} stored with event time ${row.event_time.toISOString()}, expected ${event.ts}`];
        if (canonical(row.payload) !== canonical(event)) return [`event ${event.id} stored as ${JSON.stringify(row.payload)}`];
      }
      return [];
    },
    reset: () => emptyEventStore(pool),
    async verify(measurement) {
      await settle(pool);
      const stored = await pool.query<{ requests: string; partial: string; wrong_time: string }>(
        `SELECT count(DISTINCT msgid) AS requests,
                (SELECT count(*) FROM (SELECT 1 FROM events WHERE dataset_id = $1 GROUP BY msgid HAVING count(*) <> $2) AS p) AS partial,
                count(*) FILTER (WHERE event_time <> (payload ->> 'ts')::timestamptz) AS wrong_time
           FROM events WHERE dataset_id = $1`,
        [datasetId, size],
      );
      const failed = await pool.query<{ failed: string }>('SELECT count(*) AS failed FROM failed_events WHERE dataset_id = $1', [datasetId]);
      const row = stored.rows[0]!;
      const requests = Number(row.requests);
      const problems: string[] = [];
      if (requests < measurement.ok) problems.push(`${measurement.ok} requests acknowledged, only ${requests} stored`);
      // Requests still running when autocannon stopped may land too (one per connection at most).
      if (requests > measurement.ok + servers.connections) problems.push(`${requests} requests stored, ${measurement.ok} acknowledged`);
      if (Number(row.partial) > 0) problems.push(`${row.partial} requests stored without all their ${size} events`);
      if (Number(row.wrong_time) > 0) problems.push(`${row.wrong_time} events stored with an event time other than their ts`);
      if (Number(failed.rows[0]?.failed) > 0) problems.push(`${failed.rows[0]?.failed} events recorded as failed (duplicates or invalid)`);
      return problems;
    },
  };
}

function queryScenarios(servers: Servers, templates: { sql: string; json: string }, expected: HourBucket[]): Scenario[] {
  const input = { startdate: QUERY_START, enddate: QUERY_END, dataset: QUERY_DATASET, aggregationLevel: 'hour', limit: QUERY_LIMIT };
  const templateRequest = (id: string): BenchRequest => ({
    method: 'POST',
    path: `/v2/template/query/${id}`,
    headers: jsonHeaders,
    body: JSON.stringify(envelope('api.query.template.query', 'bench-query', { request: input })),
  });
  const expectRows = (rows: unknown, read: (row: Record<string, unknown>) => [unknown, unknown, unknown]): string | undefined => {
    if (!Array.isArray(rows)) return `expected a list of rows, got ${JSON.stringify(rows)?.slice(0, 200)}`;
    if (rows.length !== expected.length) return `expected ${expected.length} hourly rows, got ${rows.length}`;
    for (const [index, want] of expected.entries()) {
      // Counts and sums are JSON numbers, as Druid gives them.
      const [time, events, amount] = read(record(rows[index]) ?? {});
      if (!isDeepStrictEqual({ time, events, amount }, want)) return `row ${index}: expected ${JSON.stringify(want)}, got ${JSON.stringify(rows[index])}`;
    }
    return undefined;
  };
  const scenario = (name: string, isFloor: boolean, request: BenchRequest, checkRows: (rows: unknown) => string | undefined): Scenario => {
    const check = (answer: Answer) => {
      const { result, problem } = (isFloor ? floorResult : gatewayResult)(answer);
      return problem ?? checkRows(result);
    };
    return {
      name,
      operation: 'hourly aggregate',
      isFloor,
      url: isFloor ? servers.floorUrl : servers.gatewayUrl,
      request,
      mode: 'latency',
      connections: servers.queryConnections,
      check,
      async probe() {
        const problem = check(await send(isFloor ? servers.floorUrl : servers.gatewayUrl, request));
        return problem ? [problem] : [];
      },
    };
  };
  return [
    scenario('REST SQL template, hourly, 30 d', false, templateRequest(templates.sql), (rows) => expectRows(rows, (row) => [row.__time, row.events, row.amount])),
    scenario('REST JSON timeseries, hourly, 30 d', false, templateRequest(templates.json), (rows) =>
      expectRows(rows, (row) => [row.timestamp, record(row.result)?.events, record(row.result)?.amount]),
    ),
    scenario('floor hourly SQL, 30 d', true, { method: 'POST', path: '/query/hourly', headers: jsonHeaders, body: JSON.stringify(input) }, (rows) =>
      expectRows(rows, (row) => [row.__time, row.events, row.amount]),
    ),
  ];
}

// ---------------------------------------------------------------------------------------------
// Running

function runAutocannon(scenario: Scenario, seconds: number): Promise<autocannon.Result> {
  return runAutocannonWith({
    url: scenario.url,
    requests: [scenario.request],
    connections: scenario.connections,
    duration: seconds,
    timeout: REQUEST_TIMEOUT_SECONDS,
    idReplacement: true,
    title: scenario.name,
  });
}

/** Throughput: autocannon's figures (latency in whole ms). */
async function measureThroughput(scenario: Scenario, seconds: number): Promise<Measurement> {
  const result = await runAutocannon(scenario, seconds);
  const problems = autocannonProblems(result, result['2xx']);
  return { requestsPerSecond: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, ok: result['2xx'], non2xx: result.non2xx, problems };
}

/** The value below which `percent` % of the sorted values lie (nearest rank). */
function percentile(sorted: number[], percent: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.max(0, Math.ceil((percent / 100) * sorted.length) - 1)]!;
}

/**
 * Latency: each connection sends one request after the other until `seconds` have passed and it has
 * had MIN_LATENCY_ANSWERS answers; every answer is checked.
 */
async function measureLatency(scenario: Scenario, seconds: number): Promise<Measurement> {
  const latencies: number[] = [];
  const problems = new Map<string, number>();
  let non2xx = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const loop = async () => {
    for (let sent = 0; sent < MIN_LATENCY_ANSWERS || performance.now() < deadline; sent++) {
      const sentAt = performance.now();
      let problem: string | undefined;
      try {
        const answer = await send(scenario.url, scenario.request);
        const elapsed = performance.now() - sentAt;
        if (answer.status !== 200) non2xx += 1;
        else latencies.push(elapsed);
        problem = scenario.check?.(answer);
      } catch (error) {
        problem = `request failed: ${(error as Error).message}`;
      }
      if (problem) problems.set(problem, (problems.get(problem) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: scenario.connections }, loop));
  const elapsedSeconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    requestsPerSecond: (latencies.length + non2xx) / elapsedSeconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    ok: latencies.length,
    non2xx,
    problems: [...problems].map(([problem, count]) => `${count}× ${problem}`),
  };
}

async function runScenario(scenario: Scenario, durationSeconds: number): Promise<Outcome> {
  const probeProblems = await scenario.probe();
  const bytes = Buffer.byteLength(scenario.request.body ?? '');
  const how =
    scenario.mode === 'throughput'
      ? `${scenario.connections} connection(s), request ${formatNumber(bytes / 1024, 1)} KiB, answer and stored rows checked`
      : `${scenario.connections} request(s) at a time, answer checked`;
  log(`running ${scenario.name} for ${durationSeconds} s (${how}: ${probeProblems.length ? 'FAILED' : 'ok'})…`);
  for (const problem of probeProblems) log(`  ! ${problem}`);
  let measurement: Measurement;
  if (scenario.mode === 'throughput') {
    await runAutocannon(scenario, WARMUP_SECONDS);
    await scenario.reset?.();
    measurement = await measureThroughput(scenario, durationSeconds);
  } else {
    // The probe was the warm-up.
    measurement = await measureLatency(scenario, durationSeconds);
  }
  const problems = [...measurement.problems, ...((await scenario.verify?.(measurement)) ?? [])];
  for (const problem of problems) log(`  ! ${problem}`);
  return { scenario, measurement, problems: [...probeProblems, ...problems] };
}

// ---------------------------------------------------------------------------------------------
// Report

/** Per second: events for ingestion, requests otherwise (the figure compared with the floor). */
function rate(outcome: Outcome): number {
  return outcome.measurement.requestsPerSecond * (outcome.scenario.eventsPerRequest ?? 1);
}

function printTable(outcomes: Outcome[]): void {
  const floorRate = new Map(outcomes.filter((o) => o.scenario.isFloor).map((o) => [o.scenario.operation, rate(o)]));
  const header = ['scenario', 'req/s', 'events/s', 'p50 ms', 'p99 ms', 'answers', 'non-2xx', 'vs floor'];
  const rows = outcomes.map((outcome) => {
    const { scenario, measurement } = outcome;
    const floor = floorRate.get(scenario.operation);
    return [
      scenario.name,
      formatNumber(measurement.requestsPerSecond, measurement.requestsPerSecond < 100 ? 1 : 0),
      scenario.eventsPerRequest ? formatNumber(rate(outcome), 0) : '-',
      formatNumber(measurement.p50, 0),
      formatNumber(measurement.p99, 0),
      formatNumber(measurement.ok, 0),
      String(measurement.non2xx),
      floor ? `${formatNumber(rate(outcome) / floor, 2)}×` : 'n/a',
    ];
  });
  printRows(header, rows);
}

function targetLine(outcomes: Outcome[]): string {
  const operation = `ingest ${TARGET_BATCH}`;
  const floor = outcomes.find((o) => o.scenario.isFloor && o.scenario.operation === operation);
  const gateway = outcomes.find((o) => !o.scenario.isFloor && o.scenario.operation === operation);
  if (!floor || !gateway) return 'target: not measured';
  const ratio = rate(gateway) / rate(floor);
  return (
    `target (issue 17): ${gateway.scenario.name} at ${formatNumber(rate(gateway), 0)} events/s is ${formatNumber(ratio, 2)}× the floor's ` +
    `${formatNumber(rate(floor), 0)} events/s; at least ${TARGET_RATIO}× wanted: ${ratio >= TARGET_RATIO ? 'met' : 'MISSED'}`
  );
}

// ---------------------------------------------------------------------------------------------
// Main

async function main(): Promise<boolean> {
  const durationSeconds = positiveIntegerSetting('BENCH_DURATION', 5);
  const connections = positiveIntegerSetting('BENCH_CONNECTIONS', 10);
  const queryConnections = positiveIntegerSetting('BENCH_QUERY_CONNECTIONS', 1);
  const queryEvents = positiveIntegerSetting('BENCH_QUERY_EVENTS', 1_000_000);
  if (queryEvents > RANGE_MS) throw new SettingError(`BENCH_QUERY_EVENTS must be at most ${RANGE_MS} (one per millisecond of the ${DAYS} days)`);

  const cpus = os.cpus();
  const loadParts = Math.max(1, Math.min(4, cpus.length));
  logMachine();
  log(
    `settings: ${durationSeconds} s per scenario; ingestion: ${connections} connections from ${CLIENT_WORKERS} autocannon worker thread after a ${WARMUP_SECONDS} s warm-up, ` +
      `batches of ${BATCH_SIZES.map((size) => formatNumber(size, 0)).join(', ')} events (about ${formatNumber(Buffer.byteLength(JSON.stringify(batchEvent(0, 'x'.repeat(27)))), 0)} bytes each as JSON, ` +
      `ids unique per request, event store emptied after each warm-up); queries: ${queryConnections} at a time, at least ${MIN_LATENCY_ANSWERS} answers each, over ${formatNumber(queryEvents, 0)} events ` +
      `in ${DAYS} days, loaded on ${loadParts} connection(s); database pool ${POOL_MAX} (gateway and floor), ` +
      `NODE_ENV=production, gateway LOG_LEVEL=silent; everything on this machine (client, gateway, floor, PostgreSQL)`,
  );

  // Stopped in reverse order, whatever happens below.
  const cleanups = new Cleanups();
  let succeeded = false;
  try {
    const { cluster, config, url: gatewayUrl } = await startBenchGateway(cleanups, POOL_MAX);
    const pool = new pg.Pool({ connectionString: cluster.url, max: loadParts });
    pool.on('error', () => undefined);
    cleanups.push('bench database pool', () => pool.end());
    const serverVersion = await pool.query<{ server_version: string }>('SHOW server_version');
    log(
      `  gateway at ${gatewayUrl}, PostgreSQL ${serverVersion.rows[0]?.server_version ?? '?'} on port ${cluster.port}, ` +
        `ingestion limits ${formatNumber(config.ingestion.maxBatch, 0)} events and ${formatNumber(config.ingestion.bodyLimitBytes / 2 ** 20, 0)} MiB per request`,
    );

    log(`publishing datasets ${PLAIN_DATASET} (no dedup, no validation), ${CHECKED_DATASET} (dedup by id, strict validation) and ${QUERY_DATASET} through the API…`);
    await publishDataset(gatewayUrl, PLAIN_DATASET, false);
    await publishDataset(gatewayUrl, CHECKED_DATASET, true);
    await publishDataset(gatewayUrl, QUERY_DATASET, false);
    const templates = {
      sql: await createTemplate(gatewayUrl, 'Bench hourly SQL', 'sql', SQL_TEMPLATE),
      json: await createTemplate(gatewayUrl, 'Bench hourly timeseries', 'json', JSON_TEMPLATE),
    };

    log('starting the floor server (express 5 + pg.Pool)…');
    const floor = await startFloor(cluster.url, config.ingestion.maxBatch);
    cleanups.push('floor server', () => floor.stop());
    const servers: Servers = { gatewayUrl, floorUrl: floor.url, pool, connections, queryConnections };

    const outcomes: Outcome[] = [];
    for (const size of BATCH_SIZES) {
      for (const kind of ['plain', 'floor', 'checked'] as const) outcomes.push(await runScenario(ingestScenario(servers, kind, size), durationSeconds));
    }
    await emptyEventStore(pool);

    log(`loading ${formatNumber(queryEvents, 0)} events of ${QUERY_DATASET} with INSERT ... SELECT generate_series on ${loadParts} connection(s), then ANALYZE…`);
    const loadStarted = Date.now();
    await loadQueryEvents(pool, queryEvents, loadParts);
    const size = await pool.query<{ size: string }>("SELECT pg_size_pretty(pg_total_relation_size('events')) AS size");
    log(`  loaded in ${formatNumber((Date.now() - loadStarted) / 1000, 1)} s (events table with its indexes: ${size.rows[0]?.size ?? '?'})`);
    const expected = expectedHours(queryEvents);
    for (const scenario of queryScenarios(servers, templates, expected)) outcomes.push(await runScenario(scenario, durationSeconds));

    log('');
    printTable(outcomes);
    log('');
    log(
      "req/s: ingestion: average of autocannon's per-second counts, queries: answers ÷ seconds; events/s: req/s × events per request; " +
        'p50/p99: latency of 200 answers (ingestion: autocannon, whole ms; queries: each request timed, nearest rank, so with fewer than 100 answers p99 is the slowest); ' +
        'answers: how many the percentiles are taken from; ' +
        "vs floor: events/s (queries: req/s) ÷ the floor's for the same batch size or query.",
    );
    log(targetLine(outcomes));
    log(`load average ${loadAverage()} at the end (above ${cpus.length} means other work competed for the CPUs: the ratios move with it)`);

    if (reportFailures(outcomes)) {
      log(
        'checks: ingestion: each request answered 200 when sent alone and its events were stored as sent; under load no non-2xx, errors or timeouts, ' +
          `every acknowledged batch stored whole with its event times, none recorded as failed; queries: every answer 200 with all ${expected.length} hourly buckets exact.`,
      );
      succeeded = true;
    }
  } finally {
    if (!(await cleanups.runAll())) succeeded = false;
  }
  return succeeded;
}

runBench(main);
