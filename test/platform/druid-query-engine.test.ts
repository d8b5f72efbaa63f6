// DruidQueryEngine (src/platform/query-engine/druid.ts) against a tiny Druid stand-in served by this
// test over real HTTP (issue 6, "Druid client"): what it sends for SQL (/druid/v2/sql with typed
// parameters and a query id) and native queries (/druid/v2 with our datasource, query id and
// timeout), how it finds datasources, the Kafka supervisor it asks for when a dataset goes Live and
// the terminate when it stops, how Druid's documented error body {error, errorMessage, errorClass,
// host} becomes our error codes, and that a Druid that never answers gives DATA_OUT_QUERY_TIMEOUT
// within the timeout plus a DELETE that cancels the query. Then the same through the whole gateway
// (DRUID_URL pointing at the stand-in), and a block that runs against a real Druid when DRUID_URL is set.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { GatewayError } from '../../src/errors.js';
import type { DatasetRecord } from '../../src/modules/datasets/index.js';
import { DruidQueryEngine } from '../../src/platform/query-engine/druid.js';
import type { QueryParameter } from '../../src/platform/query-engine/query-engine.js';
import { envelope } from '../support/api.js';
import { seedDataset, transition, type Json } from '../support/datasets.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { DAY_END, DAY_START, JSON_TEMPLATES, SALES_SCHEMA_OVERRIDES, SQL } from '../support/template-run.js';
import { describeWhen } from '../support/skip.js';

// ---------------------------------------------------------------------------------------------
// The Druid stand-in

interface Received {
  method: string;
  path: string;
  body: any;
}

/** What to answer: a status and a JSON body (or raw text), or 'hang' to never answer. */
type Answer = { status: number; body?: unknown; text?: string } | 'hang';

class FakeDruid {
  readonly received: Received[] = [];
  /** Answers by request; the default lists no datasource and answers every query with []. */
  answer: (request: Received) => Answer = () => ({ status: 200, body: [] });
  private readonly server: Server;
  private readonly hanging = new Set<ServerResponse>();

  constructor() {
    this.server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          // kept as text
        }
        const request = { method: req.method ?? '', path: req.url ?? '', body };
        this.received.push(request);
        const answer = this.answer(request);
        if (answer === 'hang') {
          this.hanging.add(res);
          res.on('close', () => this.hanging.delete(res));
          return;
        }
        res.writeHead(answer.status, { 'content-type': answer.text === undefined ? 'application/json' : 'text/html' });
        res.end(answer.text ?? (answer.body === undefined ? '' : JSON.stringify(answer.body)));
      });
    });
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Drops requests left hanging and forgets what was received. */
  reset(): void {
    for (const res of this.hanging) res.destroy();
    this.hanging.clear();
    this.received.length = 0;
    this.answer = () => ({ status: 200, body: [] });
  }

  async stop(): Promise<void> {
    this.reset();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Requests other than the cancels and datasource lists, in order. */
  queries(): Received[] {
    return this.received.filter((request) => request.method === 'POST');
  }
}

/** Druid's documented error body. */
function druidError(error: string, errorMessage: string, errorClass: string, host: string | null = null) {
  return { error, errorMessage, errorClass, host };
}

async function caught(promise: Promise<unknown>): Promise<GatewayError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    return error as GatewayError;
  }
  throw new Error('expected the call to fail');
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The segments a JSONPath of names selects: $.a.b, $['a']['b'] and $['a'].['b'] all give ['a', 'b']. */
function jsonPathSegments(expr: string): string[] {
  expect(expr.startsWith('$')).toBe(true);
  const segments: string[] = [];
  const pattern = /\.?(?:\['((?:[^'\\]|\\.)*)'\]|([A-Za-z_][A-Za-z0-9_]*))/gy;
  pattern.lastIndex = 1;
  while (pattern.lastIndex < expr.length) {
    const match = pattern.exec(expr);
    if (!match) throw new Error(`not a JSONPath of names: ${expr}`);
    segments.push(match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : match[2]!);
  }
  return segments;
}

// ---------------------------------------------------------------------------------------------

const fake = new FakeDruid();
let druidUrl: string;
let engine: DruidQueryEngine;
// Long enough that a first request on a loaded 2-core machine is not mistaken for a timeout.
const TIMEOUT_MS = 1500;

beforeAll(async () => {
  druidUrl = await fake.start();
  engine = new DruidQueryEngine({ url: druidUrl, timeoutMs: TIMEOUT_MS, kafkaBrokers: ['kafka-1:9092', 'kafka-2:9092'] });
});
afterEach(() => fake.reset());
afterAll(async () => {
  await fake.stop();
});

const PARAMETERS: QueryParameter[] = [
  { type: 'timestamp', value: '2026-03-02T00:00:00.000Z' },
  { type: 'timestamp', value: '2026-03-03T00:00:00.000Z' },
  { type: 'integer', value: 10 },
  { type: 'varchar', value: "PT1H'; DROP TABLE x; --" },
];

/** The row bound a template run passes: Druid is told one more as sqlOuterLimit, so that a cut is known. */
const ROW_BOUND = { maxRows: 5000 };

describe('DruidQueryEngine.runSql', () => {
  it('posts the query to /druid/v2/sql with typed parameters and a sqlQueryId, and gives back the rows', async () => {
    const rows = [{ __time: '2026-03-02T10:00:00.000Z', n: 3, gone: null }];
    fake.answer = () => ({ status: 200, body: rows });
    const sql = 'SELECT TIME_FLOOR("__time", ?) AS "__time", COUNT(*) AS n FROM "sales_events" WHERE "__time" >= ? AND "__time" < ? LIMIT ?';
    expect(await engine.runSql(sql, PARAMETERS, ROW_BOUND)).toStrictEqual(rows);

    expect(fake.received).toHaveLength(1);
    const [request] = fake.received;
    expect({ method: request!.method, path: request!.path }).toEqual({ method: 'POST', path: '/druid/v2/sql' });
    expect(request!.body).toMatchObject({
      query: sql,
      parameters: [
        { type: 'TIMESTAMP', value: '2026-03-02 00:00:00.000' },
        { type: 'TIMESTAMP', value: '2026-03-03 00:00:00.000' },
        { type: 'INTEGER', value: 10 },
        { type: 'VARCHAR', value: "PT1H'; DROP TABLE x; --" },
      ],
      context: { sqlQueryId: expect.stringMatching(UUID), sqlOuterLimit: ROW_BOUND.maxRows + 1 },
    });
  });

  it('cuts rows past the bound and says so (rowLimit), and says nothing when every row is there', async () => {
    fake.answer = () => ({ status: 200, body: Array.from({ length: 4 }, (_, n) => ({ n })) });
    const cut = await engine.runSql('SELECT n FROM t', [], { maxRows: 3 });
    expect({ rows: [...cut], rowLimit: cut.rowLimit }).toEqual({ rows: [{ n: 0 }, { n: 1 }, { n: 2 }], rowLimit: 3 });
    const whole = await engine.runSql('SELECT n FROM t', [], { maxRows: 4 });
    expect({ length: whole.length, rowLimit: whole.rowLimit }).toEqual({ length: 4, rowLimit: undefined });
  });

  it('asks for rows as objects and tells Druid the timeout', async () => {
    await engine.runSql('SELECT 1', [], ROW_BOUND);
    expect(fake.received[0]!.body).toMatchObject({ resultFormat: 'object', context: { timeout: TIMEOUT_MS } });
  });

  it('gives every query its own sqlQueryId', async () => {
    await engine.runSql('SELECT 1', [], ROW_BOUND);
    await engine.runSql('SELECT 1', [], ROW_BOUND);
    const [first, second] = fake.received.map((request) => request.body.context.sqlQueryId as string);
    expect(first).not.toBe(second);
  });

  it('writes parameters as ? and the datasource as a quoted identifier', () => {
    expect(engine.parameterMarker()).toBe('?');
    expect(engine.datasourceReference({ name: 'sales_events', columns: new Set() })).toBe('"sales_events"');
    expect(engine.datasourceReference({ name: 'we"ird_events', columns: new Set() })).toBe('"we""ird_events"');
  });
});

describe('DruidQueryEngine.runNative', () => {
  it('posts the query to /druid/v2 with our datasource, a queryId and the timeout, keeping its own context, and gives back the result', async () => {
    const result = [{ timestamp: '2026-03-02T10:00:00.000Z', result: { n: 3 } }];
    fake.answer = () => ({ status: 200, body: result });
    const query = {
      queryType: 'timeseries',
      dataSource: 'whatever the template said',
      intervals: ['2026-03-02T00:00:00.000Z/2026-03-03T00:00:00.000Z'],
      granularity: 'hour',
      aggregations: [{ type: 'count', name: 'n' }],
      context: { priority: 5 },
    };
    expect(await engine.runNative({ name: 'sales_events', columns: new Set() }, query)).toStrictEqual(result);

    expect(fake.received).toHaveLength(1);
    const [request] = fake.received;
    expect({ method: request!.method, path: request!.path }).toEqual({ method: 'POST', path: '/druid/v2' });
    expect(request!.body).toEqual({
      ...query,
      dataSource: 'sales_events',
      context: { priority: 5, queryId: expect.stringMatching(UUID), timeout: TIMEOUT_MS },
    });
  });

  it('sets its own queryId and timeout over any the template gave', async () => {
    await engine.runNative({ name: 'sales_events', columns: new Set() }, { queryType: 'timeBoundary', context: { queryId: 'mine', timeout: 999_999 } });
    expect(fake.received[0]!.body.context).toEqual({ queryId: expect.stringMatching(UUID), timeout: TIMEOUT_MS });
  });
});

describe('DruidQueryEngine.datasource', () => {
  it('asks GET /druid/v2/datasources and knows a dataset by its <dataset>_events datasource', async () => {
    fake.answer = () => ({ status: 200, body: ['sales_events', 'other_events', 'misc'] });
    expect(await engine.datasource('sales')).toEqual({ name: 'sales_events', columns: new Set() });
    expect(await engine.datasource('misc')).toBeUndefined();
    expect(await engine.datasource('nowhere')).toBeUndefined();
    expect(fake.received.map((request) => `${request.method} ${request.path}`)).toEqual(Array(3).fill('GET /druid/v2/datasources'));
  });

  it('gives undefined when Druid lists nothing', async () => {
    fake.answer = () => ({ status: 200, body: [] });
    expect(await engine.datasource('sales')).toBeUndefined();
  });

  it('fails with DATA_OUT_QUERY_FAILED when Druid cannot be reached', async () => {
    const offline = new DruidQueryEngine({ url: 'http://127.0.0.1:9', timeoutMs: TIMEOUT_MS });
    const error = await caught(offline.datasource('sales'));
    expect(error.code).toBe('DATA_OUT_QUERY_FAILED');
    // The reason (port 9 is one fetch refuses to dial), not fetch's bare "fetch failed".
    expect(error.message).toMatch(/could not be reached: bad port$/);
  });
});

describe('DruidQueryEngine.ensureQueryable and dropQueryable', () => {
  const dataset: DatasetRecord = {
    datasetId: 'sales',
    stage: 'live',
    name: 'Sales',
    type: 'event',
    status: 'Live',
    tags: [],
    version: 2,
    versionKey: '1700000000000',
    apiVersion: 'v2',
    dataSchema: {
      type: 'object',
      properties: {
        id: { type: 'string', data_type: 'string' },
        ts: { type: 'string', data_type: 'date-time' },
        qty: { type: 'integer', data_type: 'integer' },
        count: { type: 'integer', data_type: 'long' },
        amount: { type: 'number', data_type: 'number' },
        ratio: { type: 'number', data_type: 'double' },
        tags: { type: 'array', data_type: 'array', items: { type: 'string' } },
        paid: { type: 'boolean', data_type: 'boolean' },
        device: {
          type: 'object',
          data_type: 'object',
          properties: {
            os: { type: 'string', data_type: 'string' },
            meta: { type: 'object', data_type: 'object', properties: { build: { type: 'integer', data_type: 'integer' } } },
          },
        },
      },
    },
    extractionConfig: null,
    validationConfig: null,
    dedupConfig: null,
    denormConfig: null,
    routerConfig: { topic: 'sales.router' },
    datasetConfig: { keys_config: { timestamp_key: 'ts', data_key: '' } },
    transformationsConfig: [],
    connectorsConfig: [],
    sampleData: null,
    entryTopic: 'local.ingest',
    denormSources: [],
    createdBy: 'SYSTEM',
    updatedBy: 'SYSTEM',
    createdDate: new Date('2026-03-01T00:00:00Z'),
    updatedDate: new Date('2026-03-01T00:00:00Z'),
    publishedDate: new Date('2026-03-01T00:00:00Z'),
    alias: null,
  };

  async function supervisorSpec(record: DatasetRecord = dataset): Promise<Json> {
    fake.answer = () => ({ status: 200, body: { id: 'sales_events' } });
    await engine.ensureQueryable(record);
    expect(fake.received.map((request) => `${request.method} ${request.path}`)).toEqual(['POST /druid/indexer/v1/supervisor']);
    return fake.received[0]!.body as Json;
  }

  it('posts a kafka supervisor for the <dataset>_events datasource reading the dataset topic from the configured brokers', async () => {
    const spec = await supervisorSpec();
    expect(spec.type).toBe('kafka');
    expect(spec.spec.dataSchema.dataSource).toBe('sales_events');
    expect(spec.spec.ioConfig).toMatchObject({ type: 'kafka', topic: 'sales.router', consumerProperties: { 'bootstrap.servers': 'kafka-1:9092,kafka-2:9092' } });
    expect(spec.spec.ioConfig.inputFormat.type).toBe('json');
  });

  it('takes the timestamp column from keys_config.timestamp_key', async () => {
    const spec = await supervisorSpec();
    expect(spec.spec.dataSchema.timestampSpec).toMatchObject({ column: 'ts' });
  });

  it('falls back to obsrv_meta.syncts when the dataset names no timestamp key', async () => {
    const spec = await supervisorSpec({ ...dataset, datasetConfig: { keys_config: {} } });
    expect(spec.spec.dataSchema.timestampSpec).toMatchObject({ column: 'obsrv_meta.syncts' });
    const paths = (spec.spec.ioConfig.inputFormat.flattenSpec.fields as Json[]).find((field) => field.name === 'obsrv_meta.syncts');
    expect(jsonPathSegments(paths!.expr as string)).toEqual(['obsrv_meta', 'syncts']);
  });

  it('types one dimension per data-schema leaf from its data_type (nested fields by dotted name), without the timestamp', async () => {
    const spec = await supervisorSpec();
    const dimensions = spec.spec.dataSchema.dimensionsSpec.dimensions as { type: string; name: string }[];
    const byName = Object.fromEntries(dimensions.map((dimension) => [dimension.name, dimension.type]));
    expect(byName).toMatchObject({
      id: 'string',
      qty: 'long',
      count: 'long',
      amount: 'double',
      ratio: 'double',
      tags: 'json',
      'device.os': 'string',
      'device.meta.build': 'long',
    });
    expect(['string', 'long']).toContain(byName.paid);
    expect(Object.keys(byName).sort()).toEqual(['amount', 'count', 'device.meta.build', 'device.os', 'id', 'paid', 'qty', 'ratio', 'tags']);
  });

  it('gives each dimension and the timestamp a flattenSpec path to its place in the event', async () => {
    const spec = await supervisorSpec();
    const fields = spec.spec.ioConfig.inputFormat.flattenSpec.fields as { type: string; name: string; expr: string }[];
    const paths = Object.fromEntries(fields.map((field) => [field.name, jsonPathSegments(field.expr)]));
    expect(fields.every((field) => field.type === 'path')).toBe(true);
    expect(paths).toEqual({
      id: ['id'],
      ts: ['ts'],
      qty: ['qty'],
      count: ['count'],
      amount: ['amount'],
      ratio: ['ratio'],
      tags: ['tags'],
      paid: ['paid'],
      'device.os': ['device', 'os'],
      'device.meta.build': ['device', 'meta', 'build'],
    });
  });

  it('terminates the supervisor of the <dataset>_events datasource when the dataset stops being queryable', async () => {
    fake.answer = () => ({ status: 200, body: { id: 'sales_events' } });
    await engine.dropQueryable('sales');
    expect(fake.received.map((request) => `${request.method} ${request.path}`)).toEqual(['POST /druid/indexer/v1/supervisor/sales_events/terminate']);
  });

  it('escapes the datasource name in the terminate path', async () => {
    await engine.dropQueryable('a/b c');
    expect(fake.received[0]!.path).toBe('/druid/indexer/v1/supervisor/a%2Fb%20c_events/terminate');
  });

  it('is content when there is no supervisor to terminate (404)', async () => {
    fake.answer = () => ({ status: 404, body: { error: 'Cannot find any supervisor with id: [sales_events]' } });
    await expect(engine.dropQueryable('sales')).resolves.toBeUndefined();
  });

  it('reports any other failure to terminate', async () => {
    fake.answer = () => ({ status: 500, body: druidError('Unknown exception', 'boom', 'java.lang.RuntimeException') });
    expect((await caught(engine.dropQueryable('sales'))).code).toBe('DATA_OUT_QUERY_FAILED');
  });
});

describe("DruidQueryEngine: Druid's errors", () => {
  const calls: [string, () => Promise<unknown>][] = [
    ['runSql', () => engine.runSql('SELECT 1', [], ROW_BOUND)],
    ['runNative', () => engine.runNative({ name: 'sales_events', columns: new Set() }, { queryType: 'timeBoundary' })],
  ];

  describe.each(calls)('%s', (method, call) => {
    it('turns 400 into DATA_OUT_INVALID_INPUT (400) with Druid error and errorMessage in the message', async () => {
      fake.answer = () => ({
        status: 400,
        body: druidError('Plan validation failed', "Column 'nope' not found in any table", 'org.apache.calcite.tools.ValidationException', null),
      });
      const error = await caught(call());
      expect({ code: error.code, kind: error.kind, status: error.httpStatus }).toEqual({ code: 'DATA_OUT_INVALID_INPUT', kind: 'BAD_REQUEST', status: 400 });
      expect(error.message).toContain('Plan validation failed');
      expect(error.message).toContain("Column 'nope' not found in any table");
    });

    it('turns 500 into DATA_OUT_QUERY_FAILED (500) naming the status and the error', async () => {
      fake.answer = () => ({ status: 500, body: druidError('Unknown exception', 'java.lang.NullPointerException', 'java.lang.NullPointerException', 'historical:8083') });
      const error = await caught(call());
      expect({ code: error.code, kind: error.kind, status: error.httpStatus }).toEqual({ code: 'DATA_OUT_QUERY_FAILED', kind: 'INTERNAL_SERVER_ERROR', status: 500 });
      expect(error.message).toMatch(/500/);
      expect(error.message).toContain('java.lang.NullPointerException');
    });

    it('turns 504 "Query timeout" into DATA_OUT_QUERY_TIMEOUT', async () => {
      fake.answer = () => ({
        status: 504,
        body: druidError('Query timeout', 'Query [abc] timed out!', 'org.apache.druid.query.QueryTimeoutException', 'broker:8082'),
      });
      const error = await caught(call());
      expect(error.code).toBe('DATA_OUT_QUERY_TIMEOUT');
      expect(error.message).toContain('timed out');
    });

    it('turns an older Druid\'s 500 "Query timeout" into DATA_OUT_QUERY_TIMEOUT', async () => {
      fake.answer = () => ({ status: 500, body: druidError('Query timeout', 'Query [abc] timed out!', 'java.util.concurrent.TimeoutException') });
      expect((await caught(call())).code).toBe('DATA_OUT_QUERY_TIMEOUT');
    });

    it('turns a body that is not JSON (a proxy page) into DATA_OUT_QUERY_FAILED quoting its text', async () => {
      fake.answer = () => ({ status: 502, text: '<html>502 Bad Gateway</html>' });
      const error = await caught(call());
      expect(error.code).toBe('DATA_OUT_QUERY_FAILED');
      expect(error.message).toContain('502 Bad Gateway');
    });

    it('turns an unreachable Druid into DATA_OUT_QUERY_FAILED', async () => {
      const offline = new DruidQueryEngine({ url: 'http://127.0.0.1:9', timeoutMs: TIMEOUT_MS });
      const offlineCall = method === 'runSql' ? offline.runSql('SELECT 1', [], ROW_BOUND) : offline.runNative({ name: 'x', columns: new Set() }, { queryType: 'timeBoundary' });
      expect((await caught(offlineCall)).code).toBe('DATA_OUT_QUERY_FAILED');
    });
  });
});

describe('DruidQueryEngine: a Druid that never answers', () => {
  beforeEach(() => {
    // Queries hang; cancels are accepted as Druid does (202).
    fake.answer = (request) => (request.method === 'DELETE' ? { status: 202 } : 'hang');
  });

  it('fails a SQL query with DATA_OUT_QUERY_TIMEOUT within the timeout and cancels it with DELETE /druid/v2/sql/{sqlQueryId}', async () => {
    const started = Date.now();
    const error = await caught(engine.runSql('SELECT 1', [], ROW_BOUND));
    const elapsed = Date.now() - started;
    expect(error.code).toBe('DATA_OUT_QUERY_TIMEOUT');
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(elapsed).toBeLessThan(TIMEOUT_MS + 2500);
    const id = fake.received[0]!.body.context.sqlQueryId as string;
    expect(fake.received.map((request) => `${request.method} ${request.path}`)).toEqual(['POST /druid/v2/sql', `DELETE /druid/v2/sql/${id}`]);
  });

  it('fails a native query with DATA_OUT_QUERY_TIMEOUT within the timeout and cancels it with DELETE /druid/v2/{queryId}', async () => {
    const started = Date.now();
    const error = await caught(engine.runNative({ name: 'sales_events', columns: new Set() }, { queryType: 'timeBoundary' }));
    const elapsed = Date.now() - started;
    expect(error.code).toBe('DATA_OUT_QUERY_TIMEOUT');
    expect(elapsed).toBeLessThan(TIMEOUT_MS + 2500);
    const id = fake.received[0]!.body.context.queryId as string;
    expect(fake.received.map((request) => `${request.method} ${request.path}`)).toEqual(['POST /druid/v2', `DELETE /druid/v2/${id}`]);
  });

  it('still fails with DATA_OUT_QUERY_TIMEOUT, promptly, when the cancel hangs too', async () => {
    fake.answer = () => 'hang';
    const started = Date.now();
    const error = await caught(engine.runSql('SELECT 1', [], ROW_BOUND));
    expect(error.code).toBe('DATA_OUT_QUERY_TIMEOUT');
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 2500 + 500);
    expect(fake.received.map((request) => request.method)).toEqual(['POST', 'DELETE']);
  });
});

// ---------------------------------------------------------------------------------------------
// The whole gateway on the Druid stand-in (DRUID_URL): templates reach Druid as bound parameters.

describe('the gateway with DRUID_URL', () => {
  let gw: TestGateway;
  const DATASET = 'druid_sales';
  const DATASOURCE = 'druid_sales_events';
  const GATEWAY_TIMEOUT_MS = 1000;
  const ROWS = [{ __time: '2026-03-02T10:00:00.000Z', events: 3, total: 30.5, gone: null }];

  /** Druid lists our datasource, accepts supervisors and cancels, and answers queries with ROWS. */
  function liveDruid(request: Received): Answer {
    if (request.method === 'GET' && request.path === '/druid/v2/datasources') return { status: 200, body: [DATASOURCE] };
    if (request.path.startsWith('/druid/indexer/')) return { status: 200, body: { id: DATASOURCE } };
    if (request.method === 'DELETE') return { status: 202 };
    return { status: 200, body: ROWS };
  }

  function run(templateId: string, request: Json): Promise<Response> {
    return gw.http.post(`/v2/template/query/${templateId}`).send(envelope('api.query.template.query', request));
  }

  const REQUEST = { startdate: DAY_START, enddate: DAY_END, dataset: DATASET, aggregationLevel: 'hour', limit: 10 };

  beforeAll(async () => {
    fake.answer = liveDruid;
    gw = await startTestGateway({ DRUID_URL: druidUrl, QUERY_TIMEOUT_MS: String(GATEWAY_TIMEOUT_MS) });
    await seedDataset(gw, DATASET, 'Live', SALES_SCHEMA_OVERRIDES);
    for (const [name, type, query] of [
      ['Druid Sql', 'sql', SQL.byHour],
      ['Druid Json', 'json', JSON_TEMPLATES.timeseriesHour],
    ]) {
      const response = await gw.http.post('/v2/template/create').send(envelope('api.query.template.create', { template_name: name, query_type: type, query }));
      expect(response.status).toBe(200);
    }
  }, 60_000);
  beforeEach(() => {
    fake.received.length = 0;
    fake.answer = liveDruid;
  });
  afterAll(async () => {
    await gw?.stop();
  });

  it('asks Druid for a kafka supervisor of <dataset>_events when a dataset goes Live', async () => {
    await seedDataset(gw, 'druid_more', 'Live');
    const posts = fake.queries().filter((request) => request.path === '/druid/indexer/v1/supervisor');
    expect(posts).toHaveLength(1);
    expect(posts[0]!.body).toMatchObject({ type: 'kafka', spec: { dataSchema: { dataSource: 'druid_more_events', timestampSpec: { column: 'ts' } } } });
  });

  it('runs a sql template as Druid SQL with ? markers, our datasource and TIMESTAMP/INTEGER parameters, and answers Druid rows', async () => {
    const response = await run('druid_sql', REQUEST);
    expect(response.status).toBe(200);
    expect(response.body.result).toStrictEqual(ROWS);
    const sqlCalls = fake.received.filter((request) => request.path === '/druid/v2/sql');
    expect(sqlCalls).toHaveLength(1);
    const expectedSql = SQL.byHour.replace('{{DATASET}}', `"${DATASOURCE}"`).replace('{{STARTDATE}}', '?').replace('{{ENDDATE}}', '?').replace('{{LIMIT}}', '?');
    expect(sqlCalls[0]!.body).toMatchObject({
      query: expectedSql,
      parameters: [
        { type: 'TIMESTAMP', value: '2026-03-02 00:00:00.000' },
        { type: 'TIMESTAMP', value: '2026-03-03 00:00:00.000' },
        { type: 'INTEGER', value: 10 },
      ],
      context: { sqlQueryId: expect.stringMatching(UUID), timeout: GATEWAY_TIMEOUT_MS },
    });
  });

  it('runs a json template as a native query on our datasource with the dates filled in', async () => {
    const response = await run('druid_json', REQUEST);
    expect(response.status).toBe(200);
    expect(response.body.result).toStrictEqual(ROWS);
    const nativeCalls = fake.received.filter((request) => request.path === '/druid/v2');
    expect(nativeCalls).toHaveLength(1);
    expect(nativeCalls[0]!.body).toEqual({
      ...JSON.parse(JSON_TEMPLATES.timeseriesHour),
      dataSource: DATASOURCE,
      intervals: ['2026-03-02T00:00:00.000Z/2026-03-03T00:00:00.000Z'],
      context: { queryId: expect.stringMatching(UUID), timeout: GATEWAY_TIMEOUT_MS },
    });
  });

  it('answers 404 DATA_OUT_SOURCE_NOT_FOUND when Druid does not list the datasource, without querying', async () => {
    fake.answer = (request) => (request.path === '/druid/v2/datasources' ? { status: 200, body: ['someone_else_events'] } : liveDruid(request));
    const response = await run('druid_sql', REQUEST);
    expect({ status: response.status, code: response.body.error?.code }).toEqual({ status: 404, code: 'DATA_OUT_SOURCE_NOT_FOUND' });
    expect(fake.queries()).toEqual([]);
  });

  it('never sends a hostile dataset value to Druid', async () => {
    const response = await run('druid_sql', { ...REQUEST, dataset: `x"; DROP TABLE "${DATASOURCE}"; --` });
    expect({ status: response.status, code: response.body.error?.code }).toEqual({ status: 404, code: 'DATA_OUT_SOURCE_NOT_FOUND' });
    expect(fake.queries()).toEqual([]);
  });

  it("answers Druid's 400 as a 400 DATA_OUT_INVALID_INPUT envelope quoting Druid's message", async () => {
    fake.answer = (request) =>
      request.path === '/druid/v2/sql' ? { status: 400, body: druidError('Plan validation failed', "Column 'nope' not found", 'org.apache.calcite.tools.ValidationException') } : liveDruid(request);
    const response = await run('druid_sql', REQUEST);
    expect({ status: response.status, code: response.body.error?.code, responseCode: response.body.responseCode }).toEqual({
      status: 400,
      code: 'DATA_OUT_INVALID_INPUT',
      responseCode: 'BAD_REQUEST',
    });
    expect(response.body.error.message).toContain("Column 'nope' not found");
  });

  it('answers a Druid that never answers with DATA_OUT_QUERY_TIMEOUT within the timeout, after cancelling the query', async () => {
    fake.answer = (request) => (request.path === '/druid/v2/sql' ? 'hang' : liveDruid(request));
    const started = Date.now();
    const response = await run('druid_sql', REQUEST);
    expect(Date.now() - started).toBeLessThan(GATEWAY_TIMEOUT_MS + 3000);
    expect({ status: response.status, code: response.body.error?.code }).toEqual({ status: 503, code: 'DATA_OUT_QUERY_TIMEOUT' });
    const id = fake.received.find((request) => request.path === '/druid/v2/sql')!.body.context.sqlQueryId as string;
    expect(fake.received.some((request) => request.method === 'DELETE' && request.path === `/druid/v2/sql/${id}`)).toBe(true);
  });

  it("sends a native query on system-events to Druid's own system-events datasource, as the console's charts send it", async () => {
    const query = {
      queryType: 'groupBy',
      dataSource: 'system-events',
      granularity: { type: 'all', timeZone: 'Asia/Kolkata' },
      intervals: ['2026-03-02T00:00:00+05:30/2026-03-03T00:00:00+05:30'],
      aggregations: [{ type: 'longSum', name: 'count', fieldName: 'count' }],
      filter: {
        type: 'and',
        fields: [
          { type: 'selector', dimension: 'ctx_pdata_pid', value: 'router' },
          { type: 'selector', dimension: 'error_code', value: null },
        ],
      },
    };
    const response = await gw.http.post('/v2/data/metrics').send({ query: { url: '/config/v2/data/metrics', body: { context: { dataSource: 'system-events' }, query } } });
    expect(response.status).toBe(200);
    // In the envelope's result, as the original answers a native query (the console reads response.result).
    expect(response.body.result).toStrictEqual(ROWS);
    const nativeCalls = fake.received.filter((request) => request.path === '/druid/v2');
    expect(nativeCalls.map((request) => request.body)).toEqual([{ ...query, context: { queryId: expect.stringMatching(UUID), timeout: GATEWAY_TIMEOUT_MS } }]);
  });

  it('terminates the supervisor when the dataset is retired', async () => {
    await transition(gw, DATASET, 'Retired');
    expect(fake.queries().map((request) => request.path)).toContain(`/druid/indexer/v1/supervisor/${DATASOURCE}/terminate`);
  });
});

// ---------------------------------------------------------------------------------------------
// A real Druid, when DRUID_URL is set (no Druid can run on this machine).

const maybe = describeWhen(process.env.DRUID_URL, 'DRUID_URL is not set');

maybe('DruidQueryEngine against the Druid at DRUID_URL', () => {
  const real = () => new DruidQueryEngine({ url: process.env.DRUID_URL!, timeoutMs: 30_000 });

  it('runs SQL with INTEGER, VARCHAR and TIMESTAMP parameters', async () => {
    const rows = await real().runSql(
      `SELECT CAST(? AS INTEGER) + 1 AS "n", UPPER(?) AS "s", TIME_FLOOR(?, 'PT1H') AS "t"`,
      [
        { type: 'integer', value: 41 },
        { type: 'varchar', value: "abc'; --" },
        { type: 'timestamp', value: '2026-03-02T10:35:00.000Z' },
      ],
      ROW_BOUND,
    );
    expect(rows).toEqual([{ n: 42, s: "ABC'; --", t: '2026-03-02T10:00:00.000Z' }]);
  });

  it('turns a query on a table that does not exist into DATA_OUT_INVALID_INPUT', async () => {
    expect((await caught(real().runSql('SELECT * FROM "gateway_test_no_such_table"', [], ROW_BOUND))).code).toBe('DATA_OUT_INVALID_INPUT');
  });

  it('does not know a datasource that does not exist', async () => {
    expect(await real().datasource('gateway_test_no_such_dataset')).toBeUndefined();
  });

  it('runs a native timeBoundary on a datasource that does not exist and gets no rows', async () => {
    const result = await real().runNative({ name: 'gateway_test_no_such_dataset_events', columns: new Set() }, { queryType: 'timeBoundary' });
    expect(result).toEqual([]);
  });
});
