// OpenTelemetry as an operator turns it on: the gateway runs as `npm start` runs it (a child process)
// with OTEL_EXPORTER_OTLP_ENDPOINT pointing at an OTLP/HTTP receiver in this test (JSON encoding,
// OTEL_EXPORTER_OTLP_PROTOCOL=http/json). The spans of a REST read, a GraphQL mutation, a
// subscription and an ingest arrive, each continuing the caller's traceparent, named by the operation
// it ran, with its children for the PostgreSQL statements it made; its log lines carry its trace id.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createClient } from 'graphql-ws';
import supertest from 'supertest';
import WebSocket from 'ws';
import { envelope, SQL_QUERY } from '../support/api.js';
import { startChildGateway, type ChildGateway } from '../support/child-gateway.js';
import { seedDataset, sleep } from '../support/datasets.js';
import { createTestDatabase, type TestGateway } from '../support/gateway.js';

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
}
interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  scope: string;
  attributes: Record<string, string | number | boolean | undefined>;
}
interface ExportedLog {
  traceId?: string;
  body: string;
}

const spans: ExportedSpan[] = [];
const logs: ExportedLog[] = [];
const paths = new Set<string>();
let receiver: http.Server;
let gateway: ChildGateway;
let database: Awaited<ReturnType<typeof createTestDatabase>>;
const DATASET = 'otel_events';

function value(v: OtlpValue | undefined): string | number | boolean | undefined {
  if (!v) return undefined;
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  return v.boolValue;
}

function attributes(list: { key: string; value: OtlpValue }[] | undefined): ExportedSpan['attributes'] {
  return Object.fromEntries((list ?? []).map(({ key, value: v }) => [key, value(v)]));
}

/** A collector's OTLP/HTTP JSON endpoints: /v1/traces, /v1/logs, /v1/metrics. */
function startReceiver(): Promise<number> {
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      paths.add(req.url ?? '');
      const parsed = JSON.parse(body) as Record<string, unknown>;
      if (req.url === '/v1/traces') {
        for (const resource of parsed.resourceSpans as { scopeSpans: { scope: { name: string }; spans: (Omit<ExportedSpan, 'attributes' | 'scope'> & { attributes: never })[] }[] }[]) {
          for (const scoped of resource.scopeSpans) for (const span of scoped.spans) spans.push({ ...span, scope: scoped.scope.name, attributes: attributes(span.attributes) });
        }
      }
      if (req.url === '/v1/logs') {
        for (const resource of parsed.resourceLogs as { scopeLogs: { logRecords: { traceId?: string; body?: OtlpValue }[] }[] }[]) {
          for (const scoped of resource.scopeLogs) for (const record of scoped.logRecords) logs.push({ traceId: record.traceId, body: String(value(record.body)) });
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return new Promise((resolve) => receiver.listen(0, '127.0.0.1', () => resolve((receiver.address() as AddressInfo).port)));
}

/** A caller's span: a W3C traceparent with fresh ids. */
function callerSpan() {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

/** The spans of one trace once `name` is among them (the SDK sends in batches). */
async function traceOf(traceId: string, name: string): Promise<ExportedSpan[]> {
  const deadline = Date.now() + 15_000;
  while (!spans.some((span) => span.traceId === traceId && span.name === name)) {
    if (Date.now() > deadline) throw new Error(`no span ${name} in trace ${traceId}; spans seen: ${JSON.stringify(spans.filter((span) => span.traceId === traceId).map((span) => span.name))}`);
    await sleep(100);
  }
  return spans.filter((span) => span.traceId === traceId);
}

/** The operation's span continues the caller's, and its PostgreSQL statements are its children. */
function expectOperationSpan(trace: ExportedSpan[], caller: { spanId: string }, name: string): ExportedSpan {
  const operation = trace.find((span) => span.name === name)!;
  expect(operation.parentSpanId).toBe(caller.spanId);
  expect(operation.scope).toBe('data-platform-gateway');
  const statements = trace.filter((span) => span.scope === '@opentelemetry/instrumentation-pg' && span.name.startsWith('pg.query'));
  expect(statements.length).toBeGreaterThan(0);
  for (const statement of statements) expect(statement.parentSpanId).toBe(operation.spanId);
  return operation;
}

beforeAll(async () => {
  const port = await startReceiver();
  database = await createTestDatabase();
  gateway = await startChildGateway(database.url, {
    LOG_LEVEL: 'info',
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_SERVICE_NAME: 'gateway-under-test',
    OTEL_BSP_SCHEDULE_DELAY: '100',
    OTEL_BLRP_SCHEDULE_DELAY: '100',
    OTEL_METRIC_EXPORT_INTERVAL: '500',
  });
  await seedDataset({ http: supertest(gateway.url) } as TestGateway, DATASET, 'Live', { dedup_config: { drop_duplicates: false }, validation_config: { validate: false } });
}, 120_000);

afterAll(async () => {
  gateway?.process.kill('SIGKILL');
  await new Promise((resolve) => receiver?.close(resolve));
  await database?.drop();
});

describe('OpenTelemetry over OTLP/HTTP, with OTEL_EXPORTER_OTLP_ENDPOINT set', () => {
  it('traces a REST read as a child of the caller, with its API id, request id and caller kind, and its statements as its children', async () => {
    const caller = callerSpan();
    const response = await fetch(`${gateway.url}/v2/datasets/read/${DATASET}`, { headers: { traceparent: caller.traceparent, 'x-request-id': 'otel-read-1' } });
    expect(response.status).toBe(200);
    const trace = await traceOf(caller.traceId, 'rest api.datasets.read');
    const read = expectOperationSpan(trace, caller, 'rest api.datasets.read');
    expect(read.attributes).toMatchObject({
      'gateway.request_id': 'otel-read-1',
      'gateway.transport': 'rest',
      'gateway.operation': 'api.datasets.read',
      'gateway.api_id': 'api.datasets.read',
      'gateway.caller.kind': 'none',
      'http.route': '/v2/datasets/read/:dataset_id',
      'http.response.status_code': 200,
    });
    // The request's log line carries the trace id, on standard output and as an OTLP log record.
    const line = gateway
      .output()
      .split('\n')
      .find((text) => text.includes('"requestId":"otel-read-1"') && text.includes('request completed'));
    expect(line).toContain(`"trace_id":"${caller.traceId}"`);
    const deadline = Date.now() + 10_000;
    while (!logs.some((log) => log.traceId === caller.traceId && log.body === 'request completed') && Date.now() < deadline) await sleep(100);
    expect(logs.filter((log) => log.traceId === caller.traceId).map((log) => log.body)).toContain('request completed');
  });

  it('traces a GraphQL mutation by its operation name, its INSERT a child of it', async () => {
    const caller = callerSpan();
    const response = await fetch(`${gateway.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: caller.traceparent },
      body: JSON.stringify({
        query: 'mutation CreateOtelTemplate($input: CreateQueryTemplateInput!) { createTemplate(input: $input) { message } }',
        variables: { input: { name: 'otel template', queryType: 'SQL', query: SQL_QUERY } },
      }),
    });
    expect(((await response.json()) as { errors?: unknown }).errors).toBeUndefined();
    const trace = await traceOf(caller.traceId, 'graphql CreateOtelTemplate');
    const mutation = expectOperationSpan(trace, caller, 'graphql CreateOtelTemplate');
    expect(mutation.attributes).toMatchObject({ 'gateway.transport': 'graphql', 'gateway.operation': 'CreateOtelTemplate', 'http.response.status_code': 200 });
    expect(mutation.attributes['gateway.api_id']).toBeUndefined();
    expect(trace.some((span) => span.parentSpanId === mutation.spanId && /INSERT/i.test(String(span.attributes['db.query.text'])))).toBe(true);
  });

  it('traces an ingest: the operation, and the event store write as its child', async () => {
    const caller = callerSpan();
    const response = await fetch(`${gateway.url}/v2/data/in/${DATASET}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: caller.traceparent },
      body: JSON.stringify({ ...envelope('api.data.in', undefined, 'otel-ingest'), data: [{ id: 'e1', ts: new Date().toISOString() }] }),
    });
    expect(response.status).toBe(200);
    const trace = await traceOf(caller.traceId, 'rest api.data.in');
    const ingest = expectOperationSpan(trace, caller, 'rest api.data.in');
    expect(ingest.attributes).toMatchObject({ 'gateway.api_id': 'api.data.in', 'http.route': '/v2/data/in/:dataset_id' });
    expect(trace.some((span) => span.parentSpanId === ingest.spanId && /INSERT/i.test(String(span.attributes['db.query.text'])))).toBe(true);
  });

  it("traces a graphql-ws subscription as a child of the upgrade's traceparent, named by its operation, with the results it sent", async () => {
    const caller = callerSpan();
    class TracedSocket extends WebSocket {
      constructor(url: string, protocols?: string | string[]) {
        super(url, protocols, { headers: { traceparent: caller.traceparent } });
      }
    }
    const client = createClient({ url: `${gateway.url.replace(/^http/, 'ws')}/graphql`, webSocketImpl: TracedSocket, lazy: false, retryAttempts: 0 });
    const events = client.iterate<{ datasetChanged: { datasetId: string } }>({ query: 'subscription WatchDatasets { datasetChanged { datasetId kind } }' });
    const first = events.next();
    // Until the subscription is running, a change would come before it.
    await sleep(1_000);
    await seedDataset({ http: supertest(gateway.url) } as TestGateway, 'otel_other', 'Draft');
    expect((await first).value?.data?.datasetChanged.datasetId).toBe('otel_other');
    await events.return?.();
    await client.dispose();
    const trace = await traceOf(caller.traceId, 'graphql-ws WatchDatasets');
    const subscription = trace.find((span) => span.name === 'graphql-ws WatchDatasets')!;
    expect(subscription.parentSpanId).toBe(caller.spanId);
    expect(subscription.attributes).toMatchObject({ 'gateway.transport': 'graphql-ws', 'gateway.operation': 'WatchDatasets', 'gateway.caller.kind': 'none', 'gateway.subscription.outcome': 'closed' });
    expect(Number(subscription.attributes['gateway.subscription.messages'])).toBeGreaterThanOrEqual(1);
  });

  it('sends metrics too, and names the service as OTEL_SERVICE_NAME says', async () => {
    const deadline = Date.now() + 10_000;
    while (!paths.has('/v1/metrics') && Date.now() < deadline) await sleep(100);
    expect([...paths].sort()).toEqual(['/v1/logs', '/v1/metrics', '/v1/traces']);
    expect(gateway.output()).toContain('OpenTelemetry: traces, metrics and logs to http://127.0.0.1:');
    expect(gateway.output()).toContain('as gateway-under-test');
  });
});
