// The guard subscriptions share with HTTP, over real graphql-ws and SSE clients against one gateway
// in JWT mode: the allow list holds the dashboard's subscriptions and binds the callers it names;
// depth and cost limits; subscriptions per connection and per caller; keep-alive pings (a client
// that stops answering them is cut); and a stalled SSE consumer dropped (the SSE equivalent of 4429)
// with everything it held released.
import http from 'node:http';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createClient as createWsClient, type Client } from 'graphql-ws';
import supertest from 'supertest';
import WebSocket from 'ws';
import { JWT_ENV, token } from '../support/auth.js';
import { seedDataset } from '../support/datasets.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { unique } from '../support/ingestion.js';
import { buildSchema } from '../../src/graphql/schema.js';
import type { PersistedQueryManifest } from '../../src/graphql/persisted-operations.js';
import { ROOT } from '../../scripts/generated-files.js';

const manifest = JSON.parse(readFileSync(path.join(ROOT, 'persisted-operations.json'), 'utf8')) as PersistedQueryManifest;
const listed = (name: string) => manifest.operations.find((operation) => operation.name === name)!;
const BOUND_CALLER = 'dashboard-bot';

let gw: TestGateway;
const clients: Client[] = [];

beforeAll(async () => {
  gw = await startTestGateway({
    ...JWT_ENV,
    PERSISTED_OPERATIONS_REQUIRED_FOR: `caller:${BOUND_CALLER}`,
    LIVE_MAX_SUBSCRIPTIONS_PER_CONNECTION: '2',
    LIVE_MAX_SUBSCRIPTIONS_PER_CALLER: '3',
    LIVE_KEEPALIVE_SECONDS: '1',
    LIVE_QUEUE_CAPACITY: '4',
    GRAPHQL_MAX_COST: '20',
    JSON_MAX_STRING_LENGTH: '256',
  });
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map(async (client) => client.dispose()));
  await gw?.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const wsUrl = () => `${gw.url.replace(/^http/, 'ws')}/graphql`;

async function bearer(sub: string) {
  return { authorization: `Bearer ${await token({ sub, roles: ['admin'], expiresIn: 600 })}` };
}

function wsClient(connectionParams: Record<string, unknown>): Client {
  const client = createWsClient({ url: wsUrl(), webSocketImpl: WebSocket, connectionParams, lazy: false, retryAttempts: 0 });
  clients.push(client);
  return client;
}

/** The first result of a subscription, or the errors it was refused with. */
async function firstOf(client: Client, payload: { query: string; variables?: Record<string, unknown>; extensions?: Record<string, unknown> }) {
  const events = client.iterate(payload);
  try {
    return { result: (await events.next()).value as Record<string, unknown> };
  } catch (errors) {
    return { errors: errors as { message: string; extensions: { code: string } }[] };
  } finally {
    await events.return?.();
  }
}

async function evaluations(atLeast: number) {
  while (gw.gateway.subscriptions.stats().evaluations < atLeast) await sleep(20);
}

describe('persisted operations', () => {
  it("list the dashboard's subscriptions: every Subscription root field has one", () => {
    const fields = Object.keys(buildSchema('test').getSubscriptionType()!.getFields());
    const subscribed = new Set(
      manifest.operations.filter((operation) => operation.type === 'subscription').flatMap((operation) => [...operation.body.matchAll(/^ {2}(\w+)\s*[({]/gm)].map((m) => m[1])),
    );
    expect(fields.filter((field) => !subscribed.has(field))).toEqual([]);
  });

  it('bind a caller named by PERSISTED_OPERATIONS_REQUIRED_FOR: its unlisted subscription is refused on both transports, a listed one runs by id and as text', async () => {
    const headers = await bearer(BOUND_CALLER);
    const client = wsClient(headers);
    const refused = await firstOf(client, { query: 'subscription Mine { metricSeries(query: "vector(1)", range: 0, step: 1) { points { v } } }' });
    expect(refused.errors?.[0]?.extensions.code).toBe('PERSISTED_OPERATION_REQUIRED');
    const stream = await fetch(`${gw.url}/graphql/stream`, {
      method: 'POST',
      headers: { ...headers, accept: 'text/event-stream', 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'subscription Mine { metricSeries(query: "vector(1)", range: 0, step: 1) { points { v } } }' }),
    });
    expect(stream.status).toBe(403);
    expect(((await stream.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe('PERSISTED_OPERATION_REQUIRED');

    const operation = listed('MetricSeriesLive');
    const variables = { query: 'vector(7)', range: 0, step: 1 };
    const byId = await firstOf(client, { query: '', variables, extensions: { persistedQuery: { version: 1, sha256Hash: operation.id } } });
    expect(byId.result).toEqual({ data: { metricSeries: [{ labels: [], points: [{ t: expect.any(String), v: 7 }] }] } });
    // The listed text in another layout is recognised (compared canonically).
    // (Read a moment later, its point may fall in the next second: the same answer but for its time.)
    const asText = await firstOf(client, { query: operation.body.replace(/\s+/g, ' '), variables });
    expect(asText.result).toEqual({ data: { metricSeries: [{ labels: [], points: [{ t: expect.any(String), v: 7 }] }] } });
  });

  it('leave other callers free to send any subscription text', async () => {
    const result = await firstOf(wsClient(await bearer('free-user')), { query: 'subscription { metricSeries(query: "vector(2)", range: 0, step: 1) { points { v } } }' });
    expect(result.result).toEqual({ data: { metricSeries: [{ points: [{ v: 2 }] }] } });
  });
});

describe('limits', () => {
  it('refuse a subscription nested deeper than GRAPHQL_MAX_DEPTH, and one costing more than GRAPHQL_MAX_COST', async () => {
    const client = wsClient(await bearer('limits-user'));
    let nested = 'name';
    for (let i = 0; i < 7; i += 1) nested = `alertRules { dataset { ${nested} } }`;
    const deep = await firstOf(client, { query: `subscription { datasetChanged { dataset { ${nested} } } }` });
    expect(deep.errors?.[0]).toMatchObject({
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
      message: expect.stringMatching(/^The operation nests \d+ levels deep; at most 12 are allowed \(GRAPHQL_MAX_DEPTH\)\.$/),
    });
    // One per field: the record's fields twenty times over (aliases) cost more than the 20 allowed here.
    const aliases = Array.from({ length: 20 }, (_, i) => `n${i}: name`).join(' ');
    const costly = await firstOf(client, { query: `subscription { datasetChanged { datasetId kind at dataset { id datasetId status ${aliases} alertRules { name } } } }` });
    expect(costly.errors?.[0]).toMatchObject({
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
      message: expect.stringMatching(/^The operation costs \d+; at most 20 is allowed \(GRAPHQL_MAX_COST\)\.$/),
    });
  });

  it('refuse a variable or a literal longer than JSON_MAX_STRING_LENGTH, as POST /graphql does, naming where it is', async () => {
    const client = wsClient(await bearer(unique('sized')));
    const query = 'subscription($d: String) { datasetChanged(datasetId: $d) { datasetId } }';
    const long = 'x'.repeat(257);
    const byVariable = await firstOf(client, { query, variables: { d: long } });
    expect(byVariable.errors?.[0]).toMatchObject({
      extensions: { code: 'INVALID_INPUT' },
      message: expect.stringMatching(/^the string at \/variables\/d is 257 characters long; the limit is 256 \(JSON_MAX_STRING_LENGTH\)$/),
    });
    const byLiteral = await firstOf(client, { query: `subscription { datasetChanged(datasetId: "${long}") { datasetId } }` });
    expect(byLiteral.errors?.[0]).toMatchObject({
      extensions: { code: 'INVALID_INPUT' },
      message: expect.stringMatching(/line 1, column \d+ of the document is 257 characters long; the limit is 256/),
    });
    const overHttp = await gw.http
      .post('/graphql')
      .set(await bearer(unique('sized')))
      .send({ query: 'query($d: ID!) { dataset(id: $d) { datasetId } }', variables: { d: long } });
    expect(overHttp.body.errors[0]).toMatchObject({ extensions: { code: 'INVALID_INPUT' }, message: byVariable.errors?.[0]?.message });
  });

  it('hold a connection to LIVE_MAX_SUBSCRIPTIONS_PER_CONNECTION and a caller to LIVE_MAX_SUBSCRIPTIONS_PER_CALLER; completing one frees its place', async () => {
    const headers = await bearer(unique('counted'));
    const before = gw.gateway.subscriptions.stats().evaluations;
    const first = wsClient(headers);
    const held = [0, 1].map((n) => first.iterate({ query: `subscription Held${n} { datasetChanged(datasetId: "held_${n}") { datasetId } }` }));
    for (const events of held) void events.next().catch(() => undefined);
    await evaluations(before + 2);
    const third = await firstOf(first, { query: 'subscription { metricSeries(query: "vector(3)", range: 0, step: 1) { points { v } } }' });
    expect(third.errors?.[0]).toMatchObject({ extensions: { code: 'RATE_LIMITED' }, message: expect.stringMatching(/LIVE_MAX_SUBSCRIPTIONS_PER_CONNECTION/) });

    // A second connection of the same caller: one more fits (3 per caller), the next does not, on either transport.
    const second = wsClient(headers);
    const another = second.iterate({ query: 'subscription Held2 { datasetChanged(datasetId: "held_2") { datasetId } }' });
    void another.next().catch(() => undefined);
    await evaluations(before + 3);
    const fourth = await firstOf(second, { query: 'subscription { metricSeries(query: "vector(4)", range: 0, step: 1) { points { v } } }' });
    expect(fourth.errors?.[0]).toMatchObject({ extensions: { code: 'RATE_LIMITED' }, message: expect.stringMatching(/LIVE_MAX_SUBSCRIPTIONS_PER_CALLER/) });
    const overSse = await fetch(`${gw.url}/graphql/stream`, {
      method: 'POST',
      headers: { ...headers, accept: 'text/event-stream', 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'subscription { metricSeries(query: "vector(4)", range: 0, step: 1) { points { v } } }' }),
    });
    expect(overSse.status).toBe(429);

    // Completing one gives its place back to the caller.
    await held[0]!.return?.();
    while (gw.gateway.subscriptions.stats().evaluations > before + 2) await sleep(20);
    const freed = await firstOf(second, { query: 'subscription { metricSeries(query: "vector(5)", range: 0, step: 1) { points { v } } }' });
    expect(freed.result).toEqual({ data: { metricSeries: [{ points: [{ v: 5 }] }] } });
    await held[1]!.return?.();
    await another.return?.();
  });
});

describe('keep-alive', () => {
  async function openSocket(options: WebSocket.ClientOptions = {}) {
    const socket = new WebSocket(wsUrl(), 'graphql-transport-ws', options);
    socket.on('error', () => undefined);
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
    await new Promise<void>((resolve) => socket.once('open', () => resolve()));
    socket.send(JSON.stringify({ type: 'connection_init', payload: await bearer('pinged') }));
    await new Promise<void>((resolve) => socket.once('message', () => resolve()));
    return { socket, closed };
  }

  it('pings every LIVE_KEEPALIVE_SECONDS; a client that answers stays connected, and a protocol ping gets its pong', async () => {
    const { socket } = await openSocket();
    let pings = 0;
    socket.on('ping', () => (pings += 1));
    while (pings < 2) await sleep(100);
    expect(socket.readyState).toBe(WebSocket.OPEN);
    const pong = new Promise<unknown>((resolve) => socket.once('message', (data) => resolve(JSON.parse((data as Buffer).toString('utf8')))));
    socket.send(JSON.stringify({ type: 'ping' }));
    expect(await pong).toEqual({ type: 'pong' });
    socket.close(1000);
  });

  it('cuts a client that stops answering pings', async () => {
    const { socket, closed } = await openSocket({ autoPong: false });
    let pings = 0;
    socket.on('ping', () => (pings += 1));
    expect(await closed).toBe(1006);
    expect(pings).toBeGreaterThanOrEqual(1);
  });
});

describe('a stalled SSE consumer', () => {
  it('is sent RATE_LIMITED and complete, then cut; its evaluation and stream are released and the gateway keeps serving', async () => {
    const admin = await bearer('sse-admin');
    const asAdmin = { ...gw, http: supertest.agent(gw.url).set('authorization', admin.authorization) };
    const id = unique('live_sse_stall').replace(/-/g, '_');
    await seedDataset(asAdmin, id, 'Draft');
    // A wide schema, so each event is large and a few fill the socket's buffers.
    const wide = { type: 'object', properties: Object.fromEntries(Array.from({ length: 2_000 }, (_, i) => [`field_${i}_${'x'.repeat(60)}`, { type: 'string', description: 'y'.repeat(200) }])) };
    await gw.sql(`UPDATE datasets SET data_schema = $2::jsonb WHERE dataset_id = $1`, [id, JSON.stringify(wide)]);
    const before = gw.gateway.subscriptions.stats();

    const received: Buffer[] = [];
    let responded: (res: http.IncomingMessage) => void = () => undefined;
    const response = new Promise<http.IncomingMessage>((resolve) => (responded = resolve));
    const ended = new Promise<string>((resolve) => {
      const request = http.request(`${gw.url}/graphql/stream`, { method: 'POST', headers: { ...admin, accept: 'text/event-stream', 'content-type': 'application/json' } }, (res) => {
        responded(res);
        res.on('data', (chunk: Buffer) => received.push(chunk));
        res.once('end', () => resolve('ended'));
        res.once('error', () => resolve('cut'));
        res.once('aborted', () => resolve('cut'));
      });
      request.on('error', () => resolve('cut'));
      request.end(JSON.stringify({ query: 'subscription($id: String) { datasetChanged(datasetId: $id) { dataset { dataSchema } } }', variables: { id } }));
    });
    await evaluations(before.evaluations + 1);
    // The client stops reading: its window closes, the gateway's writes stop completing.
    const stalled = await response;
    expect(stalled.statusCode).toBe(200);
    stalled.pause();
    for (let i = 0; i < 60 && gw.gateway.subscriptions.stats().evaluations > before.evaluations; i += 1) {
      await gw.sql(`UPDATE datasets SET name = $2, updated_date = clock_timestamp() WHERE dataset_id = $1`, [id, `Stalled ${i}`]);
      await sleep(30);
    }
    // Dropped: its evaluation ended and its handler finished (nothing of it is held).
    for (const started = Date.now(); gw.gateway.subscriptions.stats().evaluations > before.evaluations || gw.gateway.subscriptions.stats().streams > before.streams;) {
      if (Date.now() - started > 30_000) throw new Error(`not released: ${JSON.stringify(gw.gateway.subscriptions.stats())}`);
      await sleep(50);
    }
    stalled.resume();
    const how = await ended;
    // The last events (RATE_LIMITED, complete) wait behind what the client never read; the gateway
    // cuts the response a second after ending it, so a slow reader may see the cut instead.
    const text = Buffer.concat(received).toString('utf8');
    if (how === 'ended') expect(text).toMatch(/event: next\ndata: \{"errors":\[\{"message":"Slow consumer[^"]*","extensions":\{"code":"RATE_LIMITED"[^\n]*\n\nevent: complete\n/);
    else expect(how).toBe('cut');
    expect((await asAdmin.http.post('/graphql').send({ query: '{ version }' })).body.data).toEqual({ version: expect.any(String) });
  }, 60_000);
});
