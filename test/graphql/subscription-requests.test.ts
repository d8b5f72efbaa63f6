// Subscriptions are requests like any other: each has a request id (over graphql-ws the connection's
// x-request-id and the subscription's id, over SSE the request's), a log line when it starts and one
// when it ends (caller, operation, duration, results sent, how it ended), metrics, and the error
// shape of its query twin: arguments the twin refuses end the subscription with an error carrying
// the same code, never a silent end and never zeros forever.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createClient as createWsClient, type Client } from 'graphql-ws';
import supertest from 'supertest';
import WebSocket from 'ws';
import { JWT_ENV, token } from '../support/auth.js';
import { seedDataset } from '../support/datasets.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { unique } from '../support/ingestion.js';
import { lineCollector, type Line } from '../support/log-lines.js';

let gw: TestGateway;
let admin: string;
const collected = lineCollector();
const clients: Client[] = [];

beforeAll(async () => {
  gw = await startTestGateway(JWT_ENV, { logStream: collected.stream });
  admin = await token({ sub: 'subscriber-1', roles: ['admin'], expiresIn: 600 });
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map(async (client) => client.dispose()));
  await gw?.stop();
});

const bearer = (jwt: string) => ({ authorization: `Bearer ${jwt}` });

function wsClient(headers: Record<string, string>): Client {
  const client = createWsClient({ url: `${gw.url.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: headers, lazy: false, retryAttempts: 0 });
  clients.push(client);
  return client;
}

/** A WebSocket client whose upgrade request carries x-request-id (as a proxy or an SDK sets it). */
function wsClientWithRequestId(headers: Record<string, string>, requestId: string): { client: Client; upgradeRequestId: Promise<string | undefined> } {
  let answered: (id: string | undefined) => void = () => undefined;
  const upgradeRequestId = new Promise<string | undefined>((resolve) => (answered = resolve));
  class WithRequestId extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols, { headers: { 'x-request-id': requestId } });
      this.once('upgrade', (response) => answered(response.headers['x-request-id'] as string | undefined));
    }
  }
  const client = createWsClient({ url: `${gw.url.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WithRequestId, connectionParams: headers, lazy: false, retryAttempts: 0 });
  clients.push(client);
  return { client, upgradeRequestId };
}

async function lineWhere(match: (line: Line) => boolean): Promise<Line> {
  for (let i = 0; i < 200; i += 1) {
    const found = collected.lines.find(match);
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('no such log line was written');
}

async function metricValue(pattern: RegExp): Promise<number> {
  const text = (await gw.http.get('/metrics')).text;
  return text
    .split('\n')
    .filter((line) => pattern.test(line))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

describe('a subscription is a request', () => {
  it('over graphql-ws: the connection echoes its x-request-id; the subscription is logged when it starts and ends, with its id, caller, operation, duration and results sent, and counted', async () => {
    const before = await metricValue(/^gateway_subscriptions_total\{transport="graphql-ws",operation="WatchSeries",outcome="closed"\}/);
    const { client, upgradeRequestId } = wsClientWithRequestId(bearer(admin), 'trace-ws-1');
    expect(await upgradeRequestId).toBe('trace-ws-1');
    const events = client.iterate({ query: 'subscription WatchSeries { metricSeries(query: "vector(5)", range: 0, step: 1) { points { v } } }' });
    expect((await events.next()).value).toEqual({ data: { metricSeries: [{ points: [{ v: 5 }] }] } });
    const started = await lineWhere((line) => line.msg === 'subscription started' && String(line.requestId).startsWith('trace-ws-1:'));
    expect(started).toMatchObject({ transport: 'graphql-ws', operation: 'WatchSeries', caller: 'subscriber-1' });
    await events.return?.();
    const ended = await lineWhere((line) => line.msg === 'subscription ended' && line.requestId === started.requestId);
    expect(ended).toMatchObject({ transport: 'graphql-ws', operation: 'WatchSeries', caller: 'subscriber-1', outcome: 'closed', messages: expect.any(Number), durationMs: expect.any(Number) });
    expect(ended.messages).toBeGreaterThanOrEqual(1);
    expect(await metricValue(/^gateway_subscriptions_total\{transport="graphql-ws",operation="WatchSeries",outcome="closed"\}/)).toBe(before + 1);
    expect(await metricValue(/^gateway_subscription_messages_total\{transport="graphql-ws",operation="WatchSeries"\}/)).toBeGreaterThanOrEqual(1);
  });

  it("over SSE: the stream's request id is the response's x-request-id, in its start and end lines and its HTTP line, which names the operation", async () => {
    const controller = new AbortController();
    const response = await fetch(`${gw.url}/graphql/stream`, {
      method: 'POST',
      headers: { ...bearer(admin), accept: 'text/event-stream', 'content-type': 'application/json', 'x-request-id': 'trace-sse-1' },
      body: JSON.stringify({ query: 'subscription StreamSeries { metricSeries(query: "vector(6)", range: 0, step: 1) { points { v } } }' }),
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe('trace-sse-1');
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('"v":6')) text += new TextDecoder().decode((await reader.read()).value);
    expect(await lineWhere((line) => line.msg === 'subscription started' && line.requestId === 'trace-sse-1')).toMatchObject({
      transport: 'graphql-sse',
      operation: 'StreamSeries',
      caller: 'subscriber-1',
    });
    controller.abort();
    expect(await lineWhere((line) => line.msg === 'subscription ended' && line.requestId === 'trace-sse-1')).toMatchObject({ outcome: 'closed', messages: expect.any(Number) });
    expect(await lineWhere((line) => line.msg?.startsWith('request ') && line.requestId === 'trace-sse-1')).toMatchObject({ transport: 'graphql', operation: 'StreamSeries' });
  });

  it('refused: logged as refused with the code, and counted by code', async () => {
    const ingestor = await token({ sub: 'ingestor-1', roles: ['ingestor'], expiresIn: 600 });
    const counted = /^gateway_subscription_errors_total\{transport="graphql-ws",operation="unresolved",code="FORBIDDEN"\}/;
    const before = await metricValue(counted);
    await expect(wsClient(bearer(ingestor)).iterate({ query: 'subscription { datasetChanged { datasetId } }' }).next()).rejects.toEqual([
      expect.objectContaining({ extensions: expect.objectContaining({ code: 'FORBIDDEN' }) }),
    ]);
    expect(await lineWhere((line) => line.msg === 'subscription refused' && line.caller === 'ingestor-1')).toMatchObject({ transport: 'graphql-ws', outcome: 'refused', errorCodes: ['FORBIDDEN'] });
    expect(await metricValue(counted)).toBe(before + 1);
  });
});

describe("arguments the query twin refuses end the subscription with the twin's code", () => {
  async function twinCode(query: string, variables?: Record<string, unknown>): Promise<string> {
    const response = await gw.http.post('/graphql').set(bearer(admin)).send({ query, variables });
    return response.body.errors?.[0]?.extensions?.code as string;
  }

  async function overWs(query: string, variables?: Record<string, unknown>): Promise<{ message: string; extensions: { code: string } }[]> {
    try {
      const next = await wsClient(bearer(admin)).iterate({ query, variables }).next();
      throw new Error(`expected an error message, got ${JSON.stringify(next)}`);
    } catch (errors) {
      return errors as { message: string; extensions: { code: string } }[];
    }
  }

  async function overSse(query: string, variables?: Record<string, unknown>): Promise<{ status: number; code: string; message: string }> {
    const response = await fetch(`${gw.url}/graphql/stream`, {
      method: 'POST',
      headers: { ...bearer(admin), accept: 'text/event-stream', 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await response.json()) as { errors: { message: string; extensions: { code: string } }[] };
    return { status: response.status, code: body.errors[0]!.extensions.code, message: body.errors[0]!.message };
  }

  it('an expression that does not parse: DATA_METRICS_INVALID_INPUT, as metricSeries answers it', async () => {
    const now = new Date().toISOString();
    expect(await twinCode(`{ metricSeries(query: "sum(", start: "${now}", end: "${now}", step: 1) { labels { name } } }`)).toBe('DATA_METRICS_INVALID_INPUT');
    const query = 'subscription { metricSeries(query: "sum(", range: 60, step: 1) { points { v } } }';
    const [error] = await overWs(query);
    expect(error).toMatchObject({ extensions: { code: 'DATA_METRICS_INVALID_INPUT' }, message: expect.stringMatching(/./) });
    expect(await overSse(query)).toMatchObject({ status: 400, code: 'DATA_METRICS_INVALID_INPUT' });
  });

  it('a dataset that does not exist: DATASET_NOT_FOUND, as dataset answers it, instead of zero counts forever', async () => {
    const missing = unique('no_such_dataset').replace(/-/g, '_');
    expect(await twinCode(`{ dataset(id: "${missing}", version: DRAFT) { datasetId } }`)).toBe('DATASET_NOT_FOUND');
    const query = `subscription { ingestionCounts(datasetId: "${missing}", every: 1) { eventsIn } }`;
    const [error] = await overWs(query);
    expect(error).toMatchObject({ extensions: { code: 'DATASET_NOT_FOUND' }, message: expect.stringContaining(missing) });
    expect(await overSse(query)).toMatchObject({ status: 404, code: 'DATASET_NOT_FOUND' });
  });

  it('a variable its type refuses: BAD_USER_INPUT naming the variable, as every door answers it (the error shape is the pipeline’s)', async () => {
    expect(await twinCode('query ($first: Int) { datasets(first: $first) { totalCount } }', { first: 'many' })).toBe('BAD_USER_INPUT');
    const query = 'subscription ($every: Int!) { ingestionCounts(datasetId: "any", every: $every) { eventsIn } }';
    const [error] = await overWs(query, { every: 'often' });
    expect(error).toMatchObject({ extensions: { code: 'BAD_USER_INPUT' }, message: expect.stringContaining('$every') });
    expect(await overSse(query, { every: 'often' })).toMatchObject({ status: 400, code: 'BAD_USER_INPUT', message: expect.stringContaining('$every') });
  });

  it('a document the schema refuses: GRAPHQL_VALIDATION_FAILED naming the field, as the query twin answers it', async () => {
    expect(await twinCode('{ datasets { noSuchField } }')).toBe('GRAPHQL_VALIDATION_FAILED');
    const query = 'subscription { datasetChanged { noSuchField } }';
    const [error] = await overWs(query);
    expect(error).toMatchObject({ extensions: { code: 'GRAPHQL_VALIDATION_FAILED' }, message: expect.stringContaining('noSuchField') });
    expect(await overSse(query)).toMatchObject({ status: 400, code: 'GRAPHQL_VALIDATION_FAILED', message: expect.stringContaining('noSuchField') });
  });

  it('a dataset that exists, even as a draft, is counted: its first step arrives', async () => {
    const id = unique('counted_draft').replace(/-/g, '_');
    await seedDataset({ ...gw, http: supertest.agent(gw.url).set(bearer(admin)) }, id, 'Draft');
    const events = wsClient(bearer(admin)).iterate({ query: `subscription { ingestionCounts(datasetId: "${id}", every: 1) { eventsIn } }` });
    expect((await events.next()).value).toEqual({ data: { ingestionCounts: { eventsIn: 0 } } });
    await events.return?.();
  });
});
