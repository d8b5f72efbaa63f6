// `npm run bench`: throughput and latency of template and dataset read and list over REST, over
// GraphQL, and over hand-written "floors" that do the same SQL with nothing around it.
//
// One run starts an embedded PostgreSQL in a fresh temporary folder, the gateway against it
// (production settings, silent logs), seeds templates and datasets through the REST API (datasets
// imported, then most taken through ReadyToPublish to Live, the rest left as drafts), starts the
// floor server on the same database, and drives every scenario with autocannon. Everything it started is stopped
// and the folder removed, also when something fails; the exit status says whether every scenario
// answered 200 with what was expected.
//
// Three floors (bench/floors.ts): express 5 + pg, bare node:http + pg (what the SQL and a socket
// write cost), and an in-memory node:http server keeping each answer serialised after its first read.
//
// Then, per round (issue 53): cold, a fresh gateway process on the same database for each REST read
// by id, measured over its first BENCH_DURATION seconds after /readyz, followed by a fresh in-memory
// floor and the express floor; and under change, REST dataset reads on the warm gateway without
// writes, then with a dataset update every 100 ms, followed by the floors. Every table shows the
// load average.
//
// Settings (environment): BENCH_DURATION seconds per scenario (default 5), BENCH_CONNECTIONS
// concurrent connections (default 10), BENCH_ONLY a regular expression: only the scenarios whose
// operation (e.g. "template read") it matches, each with its floors; BENCH_ROUNDS how many times the
// whole sequence runs (default 1), so the gateway and its floors alternate under the same load;
// BENCH_SKIP_COLD=1 leaves the cold rounds out (to look at the warm and under-change rounds alone).
// Each scenario is preceded by a 1 s warm-up.
import type autocannon from 'autocannon';
import pg from 'pg';
import { startExpressFloor, startMemoryFloor, startNodeFloor } from './floors.js';
import {
  autocannonProblems,
  type BenchRequest,
  CLIENT_WORKERS,
  Cleanups,
  envelope,
  formatNumber,
  jsonHeaders,
  log,
  logMachine,
  positiveIntegerSetting,
  postEnvelope,
  printTable as printRows,
  record,
  reportFailures,
  runAutocannon as runAutocannonWith,
  loadAverage,
  residentMemory,
  runBench,
  startBenchGateway,
  startFreshGateway,
} from './support.js';

// The gateway runs as in production. Libraries read NODE_ENV from the environment when they load
// (graphql-js, for one, skips its development-only checks in production), so it is set here and
// the gateway's modules are imported only afterwards, in main().
process.env.NODE_ENV = 'production';

const TEMPLATE_COUNT = 200;
const DATASET_COUNT = 200;
/** Every DRAFT_EVERY-th dataset stays a Draft; the others are published (Live). */
const DRAFT_EVERY = 5;
/** Every MASTER_EVERY-th dataset is a master dataset (with a data key); the others are event datasets. */
const MASTER_EVERY = 10;
const WARMUP_SECONDS = 1;
/** Database connections of the gateway (its default DB_POOL_MAX) and of the floor. */
const POOL_MAX = 10;
const SEED_CONCURRENCY = 8;

const GRAPHQL_FIELDS = 'id: templateId name query queryType createdBy updatedBy createdAt updatedAt';
const CONNECTOR_GRAPHQL_FIELDS = 'id: connectorVersionId connectorId name type category version description licence owner iconUrl status createdBy updatedBy createdAt updatedAt liveAt';
const DATASET_GRAPHQL_READ_FIELDS = 'id: datasetId name status version datasetConfig';
const DATASET_GRAPHQL_LIST_FIELDS = 'id: datasetId name status version';

interface Scenario {
  name: string;
  /** Scenarios with the same operation are compared with the floor scenario of that operation. */
  operation: string;
  /** Set on the floors: which one it is. */
  floor?: FloorKind;
  /** Base URL of the server under test. */
  url: string;
  /** Sent in turn by every connection. */
  requests: BenchRequest[];
  /** Why one response body is not the expected answer, or undefined when it is. */
  checkBody(body: unknown, request: BenchRequest): string | undefined;
}

type FloorKind = 'express' | 'node' | 'memory';

interface Outcome {
  scenario: Scenario;
  /** One autocannon result per round. */
  results: autocannon.Result[];
  problems: string[];
}

// ---------------------------------------------------------------------------------------------
// Seeding

function templateName(index: number): string {
  return `Bench template ${String(index + 1).padStart(3, '0')}`;
}

function templateId(index: number): string {
  return templateName(index).toLowerCase().replaceAll(' ', '_');
}

function templateSeedRequest(index: number) {
  const sql = index % 2 === 0;
  const query = sql
    ? `SELECT channel, COUNT(*) AS events FROM {{DATASET}} WHERE __time BETWEEN {{STARTDATE}} AND {{ENDDATE}} GROUP BY channel LIMIT {{LIMIT}}`
    : {
        queryType: 'timeseries',
        dataSource: '{{DATASET}}',
        intervals: ['{{STARTDATE}}/{{ENDDATE}}'],
        granularity: 'day',
        aggregations: [{ type: 'count', name: `count_${index}` }],
      };
  return { template_name: templateName(index), query_type: sql ? 'sql' : 'json', query };
}

function datasetId(index: number): string {
  return `bench-dataset-${String(index + 1).padStart(3, '0')}`;
}

function isDraftDataset(index: number): boolean {
  return index % DRAFT_EVERY === DRAFT_EVERY - 1;
}

/** A complete v2 definition (contract 2.1) with a small data_schema: publishable as it is. */
function datasetDefinition(index: number) {
  const master = index % MASTER_EVERY === 0;
  return {
    dataset_id: datasetId(index),
    name: `Bench dataset ${String(index + 1).padStart(3, '0')}`,
    type: master ? 'master' : 'event',
    api_version: 'v2',
    tags: ['bench', master ? 'master' : 'events'],
    data_schema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        id: { type: 'string' },
        ts: { type: 'string', format: 'date-time' },
        channel: { type: 'string' },
        amount: { type: 'number' },
      },
      required: ['id', 'ts'],
      additionalProperties: false,
    },
    dataset_config: {
      keys_config: { data_key: master ? 'id' : '', partition_key: '', timestamp_key: 'ts' },
      indexing_config: { olap_store_enabled: !master, lakehouse_enabled: false, cache_enabled: master },
      cache_config: { cache_db_host: 'localhost', cache_db_port: 6379, cache_db: master ? 1 : 0 },
      file_upload_path: [],
    },
    validation_config: { validate: true, mode: 'Strict' },
    sample_data: { id: `event-${index}`, ts: '2026-01-01T00:00:00Z', channel: 'web', amount: index },
  };
}

/** Runs `seed` for indexes 0..count-1, SEED_CONCURRENCY at a time. */
async function seedAll(count: number, seed: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await seed(next++);
  };
  await Promise.all(Array.from({ length: SEED_CONCURRENCY }, worker));
}

function seedTemplates(gatewayUrl: string): Promise<void> {
  return seedAll(TEMPLATE_COUNT, async (index) => {
    await postEnvelope(gatewayUrl, '/v2/template/create', 'api.query.template.create', templateSeedRequest(index), templateId(index));
  });
}

function seedDatasets(gatewayUrl: string): Promise<void> {
  return seedAll(DATASET_COUNT, async (index) => {
    const id = datasetId(index);
    await postEnvelope(gatewayUrl, '/v2/datasets/import', 'api.datasets.import', datasetDefinition(index), id);
    if (isDraftDataset(index)) return;
    for (const status of ['ReadyToPublish', 'Live']) {
      await postEnvelope(gatewayUrl, '/v2/datasets/status-transition', 'api.datasets.status-transition', { dataset_id: id, status }, `${id} to ${status}`);
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Scenarios

const templateIds = Array.from({ length: TEMPLATE_COUNT }, (_, index) => templateId(index));
const datasetIndexes = Array.from({ length: DATASET_COUNT }, (_, index) => index);
/** Reads rotate over the published datasets (a read gives the Live version by default). */
const liveDatasetIds = datasetIndexes.filter((index) => !isDraftDataset(index)).map(datasetId);
const DRAFT_DATASET_COUNT = DATASET_COUNT - liveDatasetIds.length;
function expectId(found: unknown, id: string | undefined, idField: string, noun: string): string | undefined {
  const got = record(found)?.[idField];
  return got === id ? undefined : `expected ${noun} ${id}, got ${JSON.stringify(got)}`;
}

function expectList(found: unknown, idField: string, noun: string, count: number): string | undefined {
  if (!Array.isArray(found)) return `expected a list, got ${JSON.stringify(found)?.slice(0, 120)}`;
  if (found.length !== count) return `expected ${count} ${noun}s, got ${found.length}`;
  const missing = found.filter((item) => typeof record(item)?.[idField] !== 'string').length;
  return missing ? `${missing} listed ${noun}s have no ${idField}` : undefined;
}

/** All seeded datasets, the published ones first, as the gateway lists them. `live`/`draft`: how each transport spells the status. */
function expectDatasetList(found: unknown, idField: string, live: string, draft: string): string | undefined {
  const problem = expectList(found, idField, 'dataset', DATASET_COUNT);
  if (problem) return problem;
  const statuses = (found as unknown[]).map((item) => record(item)?.status);
  const expected = [...Array<string>(liveDatasetIds.length).fill(live), ...Array<string>(DRAFT_DATASET_COUNT).fill(draft)];
  const wrong = statuses.findIndex((status, index) => status !== expected[index]);
  return wrong < 0 ? undefined : `expected ${liveDatasetIds.length} ${live} then ${DRAFT_DATASET_COUNT} ${draft}, item ${wrong} is ${JSON.stringify(statuses[wrong])}`;
}

/** The id a read request asks for: the last path segment, or the GraphQL variable. */
function requestedId(request: BenchRequest): string | undefined {
  if (typeof request.body === 'string') return (JSON.parse(request.body) as { variables?: { id?: string } }).variables?.id;
  return request.path.split('/').at(-1);
}

function restCheck(inner: (result: unknown, request: BenchRequest) => string | undefined) {
  return (body: unknown, request: BenchRequest) => {
    const envelope = record(body);
    if (envelope?.responseCode !== 'OK') return `responseCode ${JSON.stringify(envelope?.responseCode)}: ${JSON.stringify(envelope?.error)}`;
    return inner(envelope.result, request);
  };
}

function graphqlCheck(inner: (data: Record<string, unknown>, request: BenchRequest) => string | undefined) {
  return (body: unknown, request: BenchRequest) => {
    const response = record(body);
    if (response?.errors !== undefined) return `errors: ${JSON.stringify(response.errors).slice(0, 300)}`;
    const data = record(response?.data);
    return data ? inner(data, request) : 'no data';
  };
}

function graphqlRequest(query: string, variables?: Record<string, unknown>): BenchRequest {
  return { method: 'POST', path: '/graphql', headers: jsonHeaders, body: JSON.stringify({ query, variables }) };
}

function templateScenarios(gatewayUrl: string, floorUrl: string): Scenario[] {
  const graphqlRead = `query BenchTemplate($id: ID!) { template(id: $id) { ${GRAPHQL_FIELDS} } }`;
  const graphqlList = `query BenchTemplates { templates(first: ${TEMPLATE_COUNT}) { nodes { ${GRAPHQL_FIELDS} } } }`;
  return [
    {
      name: 'REST template read',
      operation: 'template read',
      url: gatewayUrl,
      requests: templateIds.map((id) => ({ method: 'GET', path: `/v2/template/read/${id}` })),
      checkBody: restCheck((result, request) => expectId(result, requestedId(request), 'template_id', 'template')),
    },
    {
      name: 'REST template list',
      operation: 'template list',
      url: gatewayUrl,
      requests: [{ method: 'POST', path: '/v2/template/list' }],
      checkBody: restCheck((result) => expectList(result, 'template_id', 'template', TEMPLATE_COUNT)),
    },
    {
      name: 'GraphQL template read',
      operation: 'template read',
      url: gatewayUrl,
      requests: templateIds.map((id) => graphqlRequest(graphqlRead, { id })),
      checkBody: graphqlCheck((data, request) => expectId(data.template, requestedId(request), 'id', 'template')),
    },
    {
      name: 'GraphQL template list',
      operation: 'template list',
      url: gatewayUrl,
      requests: [graphqlRequest(graphqlList)],
      checkBody: graphqlCheck((data) => expectList(record(data.templates)?.nodes, 'id', 'template', TEMPLATE_COUNT)),
    },
    {
      name: 'floor template read',
      operation: 'template read',
      floor: 'express',
      url: floorUrl,
      requests: templateIds.map((id) => ({ method: 'GET', path: `/template/read/${id}` })),
      checkBody: (body, request) => expectId(record(body)?.result, requestedId(request), 'template_id', 'template'),
    },
    {
      name: 'floor template list',
      operation: 'template list',
      floor: 'express',
      url: floorUrl,
      requests: [{ method: 'POST', path: '/template/list' }],
      checkBody: (body) => expectList(record(body)?.result, 'template_id', 'template', TEMPLATE_COUNT),
    },
  ];
}

function datasetScenarios(gatewayUrl: string, floorUrl: string): Scenario[] {
  const graphqlRead = `query BenchDataset($id: ID!) { dataset(id: $id) { ${DATASET_GRAPHQL_READ_FIELDS} } }`;
  const graphqlList = `query BenchDatasets { datasets(first: ${DATASET_COUNT}) { nodes { ${DATASET_GRAPHQL_LIST_FIELDS} } } }`;
  const listBody = JSON.stringify(envelope('api.datasets.list', 'bench-list', { request: {} }));
  return [
    {
      name: 'REST dataset read',
      operation: 'dataset read',
      url: gatewayUrl,
      requests: liveDatasetIds.map((id) => ({ method: 'GET', path: `/v2/datasets/read/${id}` })),
      checkBody: restCheck((result, request) => expectId(result, requestedId(request), 'dataset_id', 'dataset')),
    },
    {
      name: 'REST dataset list',
      operation: 'dataset list',
      url: gatewayUrl,
      requests: [{ method: 'POST', path: '/v2/datasets/list', headers: jsonHeaders, body: listBody }],
      checkBody: restCheck((result) => expectDatasetList(record(result)?.data, 'dataset_id', 'Live', 'Draft')),
    },
    {
      name: 'GraphQL dataset read',
      operation: 'dataset read',
      url: gatewayUrl,
      requests: liveDatasetIds.map((id) => graphqlRequest(graphqlRead, { id })),
      checkBody: graphqlCheck((data, request) => expectId(data.dataset, requestedId(request), 'id', 'dataset')),
    },
    {
      name: 'GraphQL dataset list',
      operation: 'dataset list',
      url: gatewayUrl,
      requests: [graphqlRequest(graphqlList)],
      checkBody: graphqlCheck((data) => expectDatasetList(record(data.datasets)?.nodes, 'id', 'LIVE', 'DRAFT')),
    },
    {
      name: 'floor dataset read',
      operation: 'dataset read',
      floor: 'express',
      url: floorUrl,
      requests: liveDatasetIds.map((id) => ({ method: 'GET', path: `/dataset/read/${id}` })),
      checkBody: (body, request) => expectId(record(body)?.result, requestedId(request), 'dataset_id', 'dataset'),
    },
    {
      name: 'floor dataset list',
      operation: 'dataset list',
      floor: 'express',
      url: floorUrl,
      requests: [{ method: 'POST', path: '/dataset/list' }],
      checkBody: (body) => expectDatasetList(record(record(body)?.result)?.data, 'dataset_id', 'Live', 'Draft'),
    },
  ];
}

/** The built-in connectors every gateway seeds at start-up (src/modules/connectors/builtins.ts). */
function connectorScenarios(gatewayUrl: string, floorUrl: string, connectorIds: string[]): Scenario[] {
  const graphqlRead = `query BenchConnector($id: ID!) { connector(id: $id) { ${CONNECTOR_GRAPHQL_FIELDS} uiSpec } }`;
  const graphqlList = `query BenchConnectors { connectors(first: 100, filter: { status: [LIVE] }) { nodes { ${CONNECTOR_GRAPHQL_FIELDS} } } }`;
  const listBody = JSON.stringify(envelope('api.connectors.list', 'bench-list', { request: { filters: { status: ['Live'] } } }));
  const count = connectorIds.length;
  return [
    {
      name: 'REST connector read',
      operation: 'connector read',
      url: gatewayUrl,
      requests: connectorIds.map((id) => ({ method: 'GET', path: `/v2/connectors/read/${id}` })),
      checkBody: restCheck((result, request) => expectId(result, requestedId(request), 'id', 'connector')),
    },
    {
      name: 'REST connector list',
      operation: 'connector list',
      url: gatewayUrl,
      requests: [{ method: 'POST', path: '/v2/connectors/list', headers: jsonHeaders, body: listBody }],
      checkBody: restCheck((result) => expectList(record(result)?.data, 'id', 'connector', count)),
    },
    {
      name: 'GraphQL connector read',
      operation: 'connector read',
      url: gatewayUrl,
      requests: connectorIds.map((id) => graphqlRequest(graphqlRead, { id })),
      checkBody: graphqlCheck((data, request) => expectId(data.connector, requestedId(request), 'id', 'connector')),
    },
    {
      name: 'GraphQL connector list',
      operation: 'connector list',
      url: gatewayUrl,
      requests: [graphqlRequest(graphqlList)],
      checkBody: graphqlCheck((data) => expectList(record(data.connectors)?.nodes, 'id', 'connector', count)),
    },
    {
      name: 'floor connector read',
      operation: 'connector read',
      floor: 'express',
      url: floorUrl,
      requests: connectorIds.map((id) => ({ method: 'GET', path: `/connector/read/${id}` })),
      checkBody: (body, request) => expectId(record(body)?.result, requestedId(request), 'id', 'connector'),
    },
    {
      name: 'floor connector list',
      operation: 'connector list',
      floor: 'express',
      url: floorUrl,
      requests: [{ method: 'POST', path: '/connector/list' }],
      checkBody: (body) => expectList(record(record(body)?.result)?.data, 'id', 'connector', count),
    },
  ];
}

/** Every scenario, and each express floor's twin on the node:http floor (same paths, same SQL). */
function scenarios(gatewayUrl: string, floorUrls: Record<FloorKind, string>, connectorIds: string[]): Scenario[] {
  const all = [...templateScenarios(gatewayUrl, floorUrls.express), ...datasetScenarios(gatewayUrl, floorUrls.express), ...connectorScenarios(gatewayUrl, floorUrls.express, connectorIds)];
  return all.flatMap((scenario) =>
    scenario.floor === 'express'
      ? [
          { ...scenario, name: `express ${scenario.name}` },
          { ...scenario, name: `node:http ${scenario.name}`, url: floorUrls.node, floor: 'node' as const },
          { ...scenario, name: `in-memory ${scenario.name}`, url: floorUrls.memory, floor: 'memory' as const },
        ]
      : [scenario],
  );
}

/** Sends every distinct request of a scenario once and checks each answer; returns the problems and the largest body size. */
async function probe(scenario: Scenario): Promise<{ problems: string[]; bytes: number }> {
  const problems: string[] = [];
  let bytes = 0;
  for (const request of scenario.requests) {
    const response = await fetch(`${scenario.url}${request.path}`, { method: request.method, headers: request.headers, body: request.body });
    const text = await response.text();
    bytes = Math.max(bytes, Buffer.byteLength(text));
    let problem: string | undefined;
    if (response.status !== 200) problem = `HTTP ${response.status}: ${text.slice(0, 200)}`;
    else {
      try {
        problem = scenario.checkBody(JSON.parse(text), request);
      } catch (error) {
        problem = `unreadable body: ${(error as Error).message}`;
      }
    }
    if (problem) problems.push(`${request.method} ${request.path}: ${problem}`);
    if (problems.length >= 3) break;
  }
  return { problems, bytes };
}

function runAutocannon(scenario: Pick<Scenario, 'url' | 'requests' | 'name'>, seconds: number, connections: number): Promise<autocannon.Result> {
  return runAutocannonWith({ url: scenario.url, requests: scenario.requests, connections, duration: seconds, title: scenario.name });
}

function resultProblems(result: autocannon.Result): string[] {
  return autocannonProblems(result, result.requests.total);
}

// ---------------------------------------------------------------------------------------------
// Report

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

const rateOf = (result: autocannon.Result) => result.requests.average;
const p99Of = (result: autocannon.Result) => result.latency.p99;

/**
 * req/s and p99 are medians over the rounds; each ratio is worked out per round (the scenario and
 * its floor ran minutes apart at most, under the same load) and shown as its median, with the
 * lowest and highest round when there are several.
 */
function printTable(outcomes: Outcome[]): void {
  const floors = (kind: FloorKind) => new Map(outcomes.filter((o) => o.scenario.floor === kind).map((o) => [o.scenario.operation, o.results]));
  const byFloor = { express: floors('express'), node: floors('node'), memory: floors('memory') };
  const ratio = (results: autocannon.Result[], floorResults: autocannon.Result[] | undefined, of: (result: autocannon.Result) => number) => {
    if (!floorResults) return 'n/a';
    const ratios = results.map((result, round) => of(result) / of(floorResults[round]!));
    const shown = `${formatNumber(median(ratios), 2)}×`;
    return ratios.length > 1 ? `${shown} (${formatNumber(Math.min(...ratios), 2)}–${formatNumber(Math.max(...ratios), 2)})` : shown;
  };
  const header = ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'vs in-memory floor', 'vs express floor', 'vs node:http floor', 'p99 vs node:http'];
  const rows = outcomes.map(({ scenario, results }) => [
    scenario.name,
    formatNumber(median(results.map(rateOf)), 0),
    formatNumber(median(results.map((result) => result.latency.p50)), 0),
    formatNumber(median(results.map(p99Of)), 0),
    String(results.reduce((sum, result) => sum + result.non2xx, 0)),
    scenario.floor ? '' : ratio(results, byFloor.memory.get(scenario.operation), rateOf),
    scenario.floor ? '' : ratio(results, byFloor.express.get(scenario.operation), rateOf),
    scenario.floor ? '' : ratio(results, byFloor.node.get(scenario.operation), rateOf),
    scenario.floor ? '' : ratio(results, byFloor.node.get(scenario.operation), p99Of),
  ]);
  printRows(header, rows);
}

// ---------------------------------------------------------------------------------------------
// Cold and under change (issue 53)

/** Measured cold too: reads by id, the ones a restart or a change leaves unkept. */
const COLD_SCENARIOS = ['REST dataset read', 'REST template read'];
/** How often the under-change round writes, and over how many of the read datasets it rotates. */
const WRITE_EVERY_MS = 100;
const WRITTEN_DATASETS = 10;

const COLD_HEADER = ['cold scenario', 'round', 'req/s', 'p99 ms', 'in-memory req/s', 'express req/s', 'vs in-memory floor', 'vs express floor', 'load'];

function coldRow(name: string, round: number, gateway: autocannon.Result, memory: autocannon.Result, expressFloor: autocannon.Result, load: string): string[] {
  return [
    name,
    String(round),
    formatNumber(rateOf(gateway), 0),
    String(p99Of(gateway)),
    formatNumber(rateOf(memory), 0),
    formatNumber(rateOf(expressFloor), 0),
    `${formatNumber(rateOf(gateway) / rateOf(memory), 2)}×`,
    `${formatNumber(rateOf(gateway) / rateOf(expressFloor), 2)}×`,
    load,
  ];
}

/** Answers the gateway's fast path served from kept answers since start-up (its /metrics), for the share of reads kept. */
async function fastPathAnswers(gatewayUrl: string): Promise<number> {
  const text = await (await fetch(`${gatewayUrl}/metrics`)).text();
  const line = text.split('\n').find((each) => each.startsWith('gateway_fast_path_answers_total{transport="rest"}'));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

/** Runs `scenario` and counts how many of its answers were kept ones (served by the fast path). */
async function runCountingKept(gatewayUrl: string, scenario: Scenario, seconds: number, connections: number): Promise<{ result: autocannon.Result; kept: number }> {
  const before = await fastPathAnswers(gatewayUrl);
  const result = await runAutocannon(scenario, seconds, connections);
  return { result, kept: ((await fastPathAnswers(gatewayUrl)) - before) / Math.max(1, result.requests.total) };
}

/** Sends a v2 envelope with `method`; throws unless it answers 200; returns the envelope's result. */
async function sendEnvelope(gatewayUrl: string, method: string, path: string, apiId: string, request: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${gatewayUrl}${path}`, { method, headers: jsonHeaders, body: JSON.stringify(envelope(apiId, 'bench-write', { request })) });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${method} ${path}: HTTP ${response.status}: ${text.slice(0, 300)}`);
  return record(record(JSON.parse(text))?.result) ?? {};
}

/**
 * Updates the drafts of `datasetIds` (Live datasets being read, so each update drops what is kept of
 * one of them) in turn, one update every WRITE_EVERY_MS while started. The drafts are made first
 * (mode=edit), with the version keys the updates need.
 */
async function datasetWriter(gatewayUrl: string, datasetIds: string[]) {
  const versionKeys = new Map<string, string>();
  for (const id of datasetIds) {
    const response = await fetch(`${gatewayUrl}/v2/datasets/read/${id}?mode=edit`);
    const draft = record(record((await response.json()) as unknown)?.result);
    if (response.status !== 200 || typeof draft?.version_key !== 'string') throw new Error(`could not make a draft of ${id}: HTTP ${response.status}`);
    versionKeys.set(id, draft.version_key);
  }
  let edits = 0;
  return {
    start() {
      let done = 0;
      let writing = false;
      const failures: string[] = [];
      const timer = setInterval(() => {
        if (writing) return;
        writing = true;
        const id = datasetIds[edits % datasetIds.length]!;
        edits += 1;
        sendEnvelope(gatewayUrl, 'PATCH', '/v2/datasets/update', 'api.datasets.update', { dataset_id: id, version_key: versionKeys.get(id), name: `Bench dataset edit ${edits}` })
          .then((result) => {
            versionKeys.set(id, String(result.version_key));
            done += 1;
          })
          .catch((error: unknown) => failures.push((error as Error).message))
          .finally(() => (writing = false));
      }, WRITE_EVERY_MS);
      return {
        stop: () => clearInterval(timer),
        done: () => done,
        failures: () => failures.slice(0, 3),
      };
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Main

async function main(): Promise<boolean> {
  const durationSeconds = positiveIntegerSetting('BENCH_DURATION', 5);
  const connections = positiveIntegerSetting('BENCH_CONNECTIONS', 10);
  const rounds = positiveIntegerSetting('BENCH_ROUNDS', 1);
  const only = new RegExp(process.env.BENCH_ONLY ?? '');

  logMachine();
  log(
    `settings: ${rounds} round(s), ${durationSeconds} s per scenario after a ${WARMUP_SECONDS} s warm-up, ${connections} connections, ` +
      `${CLIENT_WORKERS} autocannon worker thread, ${TEMPLATE_COUNT} templates, ` +
      `${DATASET_COUNT} datasets (${liveDatasetIds.length} Live, ${DRAFT_DATASET_COUNT} Draft; reads rotate over the Live ones), database pool ${POOL_MAX} (gateway and floor), ` +
      `NODE_ENV=production, gateway LOG_LEVEL=silent; everything on this machine (client, gateway, floor, PostgreSQL)`,
  );

  // Stopped in reverse order, whatever happens below.
  const cleanups = new Cleanups();
  const coldProblems: { scenario: { name: string }; problems: string[] }[] = [];
  let succeeded = false;
  try {
    const { cluster, url: gatewayUrl, pid: gatewayPid } = await startBenchGateway(cleanups, POOL_MAX);
    const registry = new pg.Client({ connectionString: cluster.url });
    await registry.connect();
    cleanups.push('bench database client', () => registry.end());
    const serverVersion = await registry.query<{ server_version: string }>('SHOW server_version');
    log(`  gateway at ${gatewayUrl}, PostgreSQL ${serverVersion.rows[0]?.server_version ?? '?'} on port ${cluster.port}`);

    log(`seeding ${TEMPLATE_COUNT} templates through POST /v2/template/create…`);
    const seeded = Date.now();
    await seedTemplates(gatewayUrl);
    log(`  seeded in ${Date.now() - seeded} ms`);

    log(`seeding ${DATASET_COUNT} datasets through POST /v2/datasets/import, then POST /v2/datasets/status-transition ` + `to ReadyToPublish and Live for ${liveDatasetIds.length} of them…`);
    const seededDatasets = Date.now();
    await seedDatasets(gatewayUrl);
    log(`  seeded in ${Date.now() - seededDatasets} ms`);

    log('starting the floor servers (express 5 + pg.Pool, node:http + pg.Pool, in-memory node:http)…');
    const expressFloor = await startExpressFloor(cluster.url);
    cleanups.push('express floor server', () => expressFloor.stop());
    const nodeFloor = await startNodeFloor(cluster.url);
    cleanups.push('node:http floor server', () => nodeFloor.stop());
    const memoryFloor = await startMemoryFloor(cluster.url);
    cleanups.push('in-memory floor server', () => memoryFloor.stop());

    const connectorIds = (await registry.query<{ id: string }>(`SELECT id FROM connector_registry WHERE status = 'Live' ORDER BY id`)).rows.map((row) => row.id);

    // Each operation's scenarios run one after another (gateway, then its floors), round after round.
    const outcomes: Outcome[] = scenarios(gatewayUrl, { express: expressFloor.url, node: nodeFloor.url, memory: memoryFloor.url }, connectorIds)
      .filter((each) => only.test(each.operation))
      .map((scenario) => ({ scenario, results: [], problems: [] }));
    for (const outcome of outcomes) {
      const checked = await probe(outcome.scenario);
      log(
        `${outcome.scenario.name}: ${outcome.scenario.requests.length} distinct request(s), response ${formatNumber(checked.bytes / 1024, 1)} KiB, each checked: ${checked.problems.length ? 'FAILED' : 'ok'}`,
      );
      for (const problem of checked.problems) log(`  ! ${problem}`);
      outcome.problems.push(...checked.problems);
    }
    for (let round = 1; round <= rounds; round += 1) {
      log(`round ${round} of ${rounds} (load average ${loadAverage()})…`);
      for (const outcome of outcomes) {
        await runAutocannon(outcome.scenario, WARMUP_SECONDS, connections);
        const result = await runAutocannon(outcome.scenario, durationSeconds, connections);
        const runProblems = resultProblems(result);
        for (const problem of runProblems) log(`  ! ${outcome.scenario.name}: ${problem}`);
        outcome.results.push(result);
        outcome.problems.push(...runProblems);
      }
    }
    const memory = residentMemory(gatewayPid);
    if (memory) log(`gateway resident memory after the runs: ${formatNumber(memory.nowMiB, 0)} MiB, peak ${formatNumber(memory.peakMiB, 0)} MiB`);

    log('');
    printTable(outcomes);
    log('');
    log(
      'req/s: average of per-second counts; p50/p99: latency of 2xx responses (autocannon records whole ms); vs … floor: req/s ÷ that floor’s req/s for the same operation; ' +
        'p99 vs node:http: p99 ÷ the node:http floor’s p99. Several rounds: medians, ratios per round (lowest–highest). ' +
        'in-memory floor: node:http keeping each answer serialised after its first read (bench/floors.ts).',
    );

    const coldScenarios = outcomes.filter((outcome) => COLD_SCENARIOS.includes(outcome.scenario.name)).map((outcome) => outcome.scenario);
    const floorOf = (operation: string, kind: FloorKind) => outcomes.find((outcome) => outcome.scenario.operation === operation && outcome.scenario.floor === kind)!.scenario;
    if (coldScenarios.length > 0 && process.env.BENCH_SKIP_COLD !== '1') {
      log('');
      log(
        `cold: each round, per scenario, a fresh gateway on this database (as \`npm start\` runs it) from its first ${durationSeconds} s after /readyz, then a fresh in-memory floor, then the express floor…`,
      );
      const cold: string[][] = [];
      for (let round = 1; round <= rounds; round += 1) {
        for (const scenario of coldScenarios) {
          const load = loadAverage();
          const fresh = await startFreshGateway(cluster.url, POOL_MAX);
          const gateway = await runAutocannon({ ...scenario, url: fresh.url }, durationSeconds, connections).finally(() => fresh.stop());
          const freshMemory = await startMemoryFloor(cluster.url);
          const memoryResult = await runAutocannon({ ...floorOf(scenario.operation, 'memory'), url: freshMemory.url }, durationSeconds, connections).finally(() => freshMemory.stop());
          const expressResult = await runAutocannon(floorOf(scenario.operation, 'express'), durationSeconds, connections);
          const problems = [gateway, memoryResult, expressResult].flatMap(resultProblems);
          if (problems.length > 0) {
            log(`  ! cold ${scenario.name}: ${problems.join('; ')}`);
            coldProblems.push(...problems.map((problem) => ({ scenario: { name: `cold ${scenario.name}` }, problems: [problem] })));
          }
          cold.push(coldRow(scenario.name, round, gateway, memoryResult, expressResult, load));
        }
      }
      printRows(COLD_HEADER, cold);
      log(
        'cold: the first seconds of a fresh gateway (its first reads, a cold JIT, an empty cache) ÷ a fresh in-memory floor (its first reads too) and ÷ the express + pg floor, in the same round; load: the load average as the round began.',
      );
    }

    const changing = outcomes.find((outcome) => outcome.scenario.name === 'REST dataset read')?.scenario;
    if (changing) {
      log('');
      log(
        `under change: REST dataset reads on the warm gateway, ${durationSeconds} s without writes, then ${durationSeconds} s with a dataset update every ${WRITE_EVERY_MS} ms (a draft of a dataset being read), then the floors…`,
      );
      const writer = await datasetWriter(gatewayUrl, liveDatasetIds.slice(0, WRITTEN_DATASETS));
      const underChange: string[][] = [];
      for (let round = 1; round <= rounds; round += 1) {
        const load = loadAverage();
        const { result: warm, kept: warmKept } = await runCountingKept(gatewayUrl, changing, durationSeconds, connections);
        const writes = writer.start();
        const { result: changed, kept: changedKept } = await runCountingKept(gatewayUrl, changing, durationSeconds, connections).finally(() => writes.stop());
        const memoryResult = await runAutocannon(floorOf('dataset read', 'memory'), durationSeconds, connections);
        const expressResult = await runAutocannon(floorOf('dataset read', 'express'), durationSeconds, connections);
        const problems = [...[warm, changed, memoryResult, expressResult].flatMap(resultProblems), ...writes.failures()];
        if (problems.length > 0) {
          log(`  ! under change: ${problems.join('; ')}`);
          coldProblems.push({ scenario: { name: 'REST dataset read under change' }, problems });
        }
        underChange.push([
          String(round),
          formatNumber(rateOf(warm), 0),
          formatNumber(rateOf(changed), 0),
          String(p99Of(changed)),
          String(writes.done()),
          `${formatNumber(100 * warmKept, 0)} % → ${formatNumber(100 * changedKept, 0)} %`,
          `${formatNumber(rateOf(changed) / rateOf(warm), 2)}×`,
          `${formatNumber(rateOf(changed) / rateOf(memoryResult), 2)}×`,
          `${formatNumber(rateOf(changed) / rateOf(expressResult), 2)}×`,
          load,
        ]);
      }
      printRows(['round', 'warm req/s', 'under change req/s', 'p99 ms', 'writes', 'kept (warm → under change)', 'vs warm', 'vs in-memory floor', 'vs express floor', 'load'], underChange);
      log(
        'under change: req/s while a dataset update commits every 100 ms (each drops what is made of that dataset) ÷ the same reads just before without writes, and ÷ the floors right after; ' +
          "kept: the share of the reads served from kept answers (the gateway's gateway_fast_path_answers_total).",
      );
    }

    if (reportFailures([...outcomes, ...coldProblems])) {
      log('checks: every distinct request answered 200 with the expected body when sent alone; under load no non-2xx, errors or timeouts.');
      succeeded = true;
    }
  } finally {
    if (!(await cleanups.runAll())) succeeded = false;
  }
  return succeeded;
}

runBench(main);
