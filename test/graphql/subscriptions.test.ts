// Subscriptions over real transports: a graphql-ws client on the /graphql WebSocket and a
// graphql-sse client on /graphql/stream, against a gateway in JWT mode. Each field sees the event
// its mutation, ingest or evaluation causes; the guard refuses what HTTP refuses; malformed frames
// and a stalled client leave the gateway serving.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createClient as createSseClient } from 'graphql-sse';
import { createClient as createWsClient, type Client } from 'graphql-ws';
import supertest from 'supertest';
import WebSocket from 'ws';
import { startSmtpSink, type SmtpSink } from '../support/alerting.js';
import { envelope, graphql } from '../support/api.js';
import { JWT_ENV, token } from '../support/auth.js';
import { definition, seedDataset } from '../support/datasets.js';
import { seedTemplate } from '../support/templates.js';
import { startCopy, startTestGateway, type TestGateway } from '../support/gateway.js';
import { type Gateway } from '../../src/server.js';
import { unique } from '../support/ingestion.js';

let gw: TestGateway;
/** A second copy on the same database. */
let copy: Gateway;
let smtp: SmtpSink;
let admin: string;
/** The gateway with an admin's token on every request (the seed helpers send none). */
let asAdmin: TestGateway;
const clients: Client[] = [];

beforeAll(async () => {
  smtp = await startSmtpSink();
  gw = await startTestGateway({
    ...JWT_ENV,
    JWT_CLOCK_TOLERANCE_SECONDS: '0',
    SMTP_URL: smtp.url,
    ALERT_EVALUATION_TICK_SECONDS: '0',
    LIVE_QUEUE_CAPACITY: '4',
    LIVE_MAX_SUBSCRIPTIONS_PER_CONNECTION: '60',
  });
  admin = await token({ roles: ['admin'], expiresIn: 3600 });
  copy = await startCopy(gw, { ...JWT_ENV, METRICS_SAMPLE_INTERVAL_SECONDS: '0', ALERT_EVALUATION_TICK_SECONDS: '0' });
  asAdmin = { ...gw, http: supertest.agent(gw.url).set('authorization', `Bearer ${admin}`) };
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map(async (client) => client.dispose()));
  await copy?.stop();
  await gw?.stop();
  await smtp?.stop();
});

const wsUrl = () => `${gw.url.replace(/^http/, 'ws')}/graphql`;

/** A graphql-ws client; `closed` resolves with the close code the server sent. */
function wsClient(connectionParams: Record<string, unknown> | undefined, url = wsUrl()) {
  let closedWith: (code: number) => void = () => undefined;
  const closed = new Promise<number>((resolve) => (closedWith = resolve));
  const client = createWsClient({
    url,
    webSocketImpl: WebSocket,
    connectionParams,
    lazy: false,
    retryAttempts: 0,
    on: { closed: (event) => closedWith((event as { code: number }).code) },
  });
  clients.push(client);
  return { client, closed };
}

const bearer = (jwt: string) => ({ authorization: `Bearer ${jwt}` });

/** Reads from an iterator until `until` accepts a result (or it ends); answers that result. */
async function nextMatching<T>(iterator: AsyncIterator<T>, until: (value: T) => boolean): Promise<T> {
  for (;;) {
    const next = await iterator.next();
    if (next.done) throw new Error('the subscription ended before the expected event');
    if (until(next.value)) return next.value;
  }
}

/** Waits until the subscription is registered on the gateway (the first event could otherwise come before it). */
async function subscribed(evaluations: number) {
  while (gw.gateway.subscriptions.stats().evaluations < evaluations) await new Promise((resolve) => setTimeout(resolve, 20));
}

const IMPORT = 'mutation($d: JSON!) { importDataset(definition: $d) { id } }';

async function gql(query: string, variables?: Record<string, unknown>) {
  const response = await gw.http.post('/graphql').set('authorization', `Bearer ${admin}`).send({ query, variables });
  expect(response.body.errors).toBeUndefined();
  return response.body.data as Record<string, any>;
}

describe('each field sees the event it is about', () => {
  it('datasetChanged over WebSocket: a dataset imported by a mutation arrives with its record', async () => {
    const { client } = wsClient(bearer(admin));
    const id = unique('live_ws').replace(/-/g, '_');
    const before = gw.gateway.subscriptions.stats().evaluations;
    const events = client.iterate({ query: 'subscription($id: String) { datasetChanged(datasetId: $id) { datasetId kind dataset { datasetId name status } } }', variables: { id } });
    const first = events.next();
    await subscribed(before + 1);
    await gql(IMPORT, { d: { ...definition(id), name: 'Live over WS' } });
    const result = await first;
    expect(result.value).toEqual({ data: { datasetChanged: { datasetId: id, kind: 'CREATED', dataset: { datasetId: id, name: 'Live over WS', status: 'DRAFT' } } } });
    await events.return?.();
  });

  it('datasetChanged across copies: a change made through one gateway reaches a subscriber of the other, once', async () => {
    const { client } = wsClient(bearer(admin), `${copy.url.replace(/^http/, 'ws')}/graphql`);
    const id = unique('live_copy').replace(/-/g, '_');
    const events = client.iterate<{ datasetChanged: { datasetId: string; kind: string } }>({ query: 'subscription { datasetChanged { datasetId kind } }' });
    const received: string[] = [];
    const first = nextMatching(events, (result) => {
      received.push(result.data!.datasetChanged.datasetId);
      return result.data!.datasetChanged.datasetId === id;
    });
    while (copy.subscriptions.stats().evaluations < 1) await new Promise((resolve) => setTimeout(resolve, 20));
    await gql(IMPORT, { d: definition(id) });
    expect((await first).data!.datasetChanged).toEqual({ datasetId: id, kind: 'CREATED' });
    // A marker dataset after it: when it arrives, anything delivered twice would have arrived before it.
    const marker = unique('live_marker').replace(/-/g, '_');
    const markerSeen = nextMatching(events, (result) => {
      received.push(result.data!.datasetChanged.datasetId);
      return result.data!.datasetChanged.datasetId === marker;
    });
    await gql(IMPORT, { d: definition(marker) });
    await markerSeen;
    expect(received.filter((seen) => seen === id)).toEqual([id]);
    await events.return?.();
  });

  it('datasetChanged over SSE: a status transition arrives as STATUS_CHANGED with the new status, once', async () => {
    const id = unique('live_sse').replace(/-/g, '_');
    await seedDataset(asAdmin, id, 'ReadyToPublish');
    const sse = createSseClient({ url: `${gw.url}/graphql/stream`, headers: bearer(admin), retryAttempts: 0 });
    const before = gw.gateway.subscriptions.stats().evaluations;
    const events = sse.iterate<{ datasetChanged: { kind: string; previousStatus: string; dataset: { status: string } } }>({
      query: 'subscription($id: String) { datasetChanged(datasetId: $id) { kind previousStatus dataset { status } } }',
      variables: { id },
    });
    const first = events.next();
    await subscribed(before + 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await gql('mutation($id: ID!) { transitionDataset(id: $id, to: LIVE) { id } }', { id });
    const result = await first;
    expect(result.value!.data!.datasetChanged).toEqual({ kind: 'STATUS_CHANGED', previousStatus: 'READY_TO_PUBLISH', dataset: { status: 'LIVE' } });
    await events.return?.();
    sse.dispose();
  });
});

describe('datasetChanged over every dataset', () => {
  it('tells the first change of a dataset made before anyone subscribed to every dataset as what it is: STATUS_CHANGED with the status before', async () => {
    const id = unique('live_unseen').replace(/-/g, '_');
    await seedDataset(asAdmin, id, 'ReadyToPublish');
    const { client } = wsClient(bearer(admin));
    // A subscriber to another dataset is already there: the first subscriber to every dataset still reads them all.
    const startedBefore = gw.gateway.subscriptions.stats().started;
    const other = client.iterate({ query: 'subscription { datasetChanged(datasetId: "live_unseen_other") { datasetId } }' });
    void other.next().catch(() => undefined);
    while (gw.gateway.subscriptions.stats().started <= startedBefore) await new Promise((resolve) => setTimeout(resolve, 20));
    const before = gw.gateway.subscriptions.stats().evaluations;
    const events = client.iterate<{ datasetChanged: { datasetId: string; kind: string; previousStatus: string | null } }>({
      query: 'subscription { datasetChanged { datasetId kind previousStatus } }',
    });
    const ours = nextMatching(events, (result) => result.data!.datasetChanged.datasetId === id);
    await subscribed(before + 1);
    await gql('mutation($id: ID!) { transitionDataset(id: $id, to: LIVE) { id } }', { id });
    expect((await ours).data!.datasetChanged).toEqual({ datasetId: id, kind: 'STATUS_CHANGED', previousStatus: 'READY_TO_PUBLISH' });
    await Promise.all([events.return?.(), other.return?.()]);
  });
});

describe('fields fed by the metrics store and the evaluator', () => {
  it('ingestionCounts: the events of an ingest arrive in the interval that saw them', async () => {
    const id = unique('live_counts').replace(/-/g, '_');
    await seedDataset(asAdmin, id, 'Live');
    const { client } = wsClient(bearer(admin));
    const before = gw.gateway.subscriptions.stats().evaluations;
    const events = client.iterate<{ ingestionCounts: { eventsIn: number; processed: number; failed: number } }>({
      query: 'subscription($id: String!) { ingestionCounts(datasetId: $id, every: 1) { t eventsIn processed failed } }',
      variables: { id },
    });
    const counted = nextMatching(events, (result) => (result.data?.ingestionCounts.eventsIn ?? 0) > 0);
    await subscribed(before + 1);
    const ingested = await asAdmin.http.post(`/v2/data/in/${id}`).send({ ...envelope('api.data.in', undefined, unique('m')), data: [{ id: 'a' }, { id: 'b' }, { id: 'c' }] });
    expect(ingested.status).toBe(200);
    await gw.gateway.metricsSampler!.sample(Date.now());
    expect((await counted).data!.ingestionCounts).toMatchObject({ eventsIn: 3, processed: 3, failed: 0 });
    await events.return?.();
  });

  it('metricSeries: the window first, then one point per series for each new step', async () => {
    const { client } = wsClient(bearer(admin));
    await gw.gateway.metricsSampler!.sample(Date.now());
    const events = client.iterate<{ metricSeries: { points: { t: string }[] }[] }>({ query: 'subscription { metricSeries(query: "count(gateway_info)", range: 10, step: 1) { points { t v } } }' });
    const window = (await events.next()).value!;
    expect(window.data!.metricSeries).toHaveLength(1);
    expect(window.data!.metricSeries[0]!.points).toHaveLength(11);
    const step = (await events.next()).value!;
    expect(step.data!.metricSeries[0]!.points).toHaveLength(1);
    expect(Date.parse(step.data!.metricSeries[0]!.points[0]!.t)).toBe(Date.parse(window.data!.metricSeries[0]!.points[10]!.t) + 1000);
    await events.return?.();
  });

  it('alertRuleStateChanged and notificationSent: a rule goes pending, fires, and its e-mail is reported sent', async () => {
    const dataset = unique('live_alert').replace(/-/g, '_');
    const ok = async (response: supertest.Response) => {
      expect([response.status, response.body.error]).toEqual([200, undefined]);
      return response.body.result as Record<string, any>;
    };
    const channel = await ok(
      await asAdmin.http.post('/alerts/v1/notifications/create').send({ manager: 'embedded', name: unique('oncall'), type: 'email', config: { recipientAddresses: 'oncall@example.com' } }),
    );
    await ok(await asAdmin.http.get(`/alerts/v1/notifications/publish/${channel.id as string}`));
    const rule = await ok(
      await asAdmin.http.post('/alerts/v1/create').send({
        name: unique('Always'),
        manager: 'embedded',
        description: 'holds whenever the gateway is up',
        category: 'processing',
        severity: 'critical',
        frequency: '10s',
        interval: '1m',
        labels: {},
        metadata: { queryBuilderContext: { metric: `count(gateway_info{dataset!="${dataset}"})`, operator: 'gt', threshold: [0] } },
        notification: { channels: [channel.id] },
        context: { alertType: 'CUSTOM' },
      }),
    );
    await ok(await asAdmin.http.get(`/alerts/v1/publish/${rule.id as string}`));
    const { client } = wsClient(bearer(admin));
    const before = gw.gateway.subscriptions.stats().evaluations;
    const transitions = client.iterate<{ alertRuleStateChanged: { from: string; to: string; value: number } }>({
      query: 'subscription($w: AlertRuleStateChangeWhere) { alertRuleStateChanged(where: $w) { ruleId from to value } }',
      variables: { w: { ruleId: rule.id } },
    });
    const sent = client.iterate<{ notificationSent: { ruleId: string; notification: { outcome: string; kind: string; channelId: string } } }>({
      query: 'subscription($w: NotificationSentWhere) { notificationSent(where: $w) { ruleId notification { outcome kind channelId } } }',
      variables: { w: { ruleId: rule.id, outcomes: ['SENT'] } },
    });
    const pending = transitions.next();
    const firstSent = sent.next();
    await subscribed(before + 2);
    const t0 = Date.now();
    await gw.gateway.metricsSampler!.sample(t0);
    await gw.gateway.alertEvaluator.cycle(t0);
    expect((await pending).value!.data!.alertRuleStateChanged).toEqual({ ruleId: rule.id, from: 'INACTIVE', to: 'PENDING', value: 1 });
    await gw.gateway.metricsSampler!.sample(t0 + 75_000);
    await gw.gateway.alertEvaluator.cycle(t0 + 75_000);
    expect((await transitions.next()).value!.data!.alertRuleStateChanged).toMatchObject({ from: 'PENDING', to: 'FIRING' });
    expect((await firstSent).value!.data!.notificationSent).toEqual({ ruleId: rule.id, notification: { outcome: 'SENT', kind: 'FIRING', channelId: channel.id } });
    await transitions.return?.();
    await sent.return?.();
  });
});

describe('the guard', () => {
  it('refuses a connection_init without credentials, and one with a token it cannot verify, with 4403', async () => {
    expect(await wsClient(undefined).closed).toBe(4403);
    expect(await wsClient(bearer('not-a-token')).closed).toBe(4403);
  });

  it("refuses a subscription to what the caller's role may not read, with FORBIDDEN, and over SSE with 403", async () => {
    const ingestor = await token({ roles: ['ingestor'], expiresIn: 600 });
    const { client } = wsClient(bearer(ingestor));
    const events = client.iterate({ query: 'subscription { datasetChanged { datasetId } }' });
    await expect(events.next()).rejects.toEqual([expect.objectContaining({ extensions: expect.objectContaining({ code: 'FORBIDDEN' }) })]);
    const response = await fetch(`${gw.url}/graphql/stream`, {
      method: 'POST',
      headers: { ...bearer(ingestor), accept: 'text/event-stream', 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'subscription { datasetChanged { datasetId } }' }),
    });
    expect(response.status).toBe(403);
    expect(((await response.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe('FORBIDDEN');
  });

  it("never sends a viewer a dataset's template SQL when an admin changes the dataset, over WebSocket or SSE, while an admin on the same operation gets it", async () => {
    const id = unique('live_viewer').replace(/-/g, '_');
    await seedDataset(asAdmin, id, 'Draft');
    const secret = `SELECT city FROM {{DATASET}} JOIN ${id} USING (id) WHERE __time BETWEEN {{STARTDATE}} AND {{ENDDATE}} LIMIT {{LIMIT}}`;
    const templateId = await seedTemplate(asAdmin, `viewer secret ${id.slice(-8)}`.replace(/_/g, ''), 'sql', secret);
    const operation = {
      query: 'subscription($d: String) { datasetChanged(datasetId: $d) { datasetId dataset { datasetId templates { templateId query } } } }',
      variables: { d: id },
    };
    const viewer = await token({ roles: ['viewer'], expiresIn: 600 });
    const before = gw.gateway.subscriptions.stats().evaluations;
    const viewerWs = wsClient(bearer(viewer)).client.iterate<Record<string, any>>(operation);
    const adminWs = wsClient(bearer(admin)).client.iterate<Record<string, any>>(operation);
    const viewerSse = createSseClient({ url: `${gw.url}/graphql/stream`, headers: bearer(viewer), retryAttempts: 0 });
    const viewerStream = viewerSse.iterate<Record<string, any>>(operation);
    const received = [viewerWs.next(), adminWs.next(), viewerStream.next()];
    // The viewer's two subscriptions share one evaluation; the admin's is another (another access).
    await subscribed(before + 2);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await gql('mutation($id: ID!) { transitionDataset(id: $id, to: READY_TO_PUBLISH) { id } }', { id });
    const [overWs, asAdminWs, overSse] = (await Promise.all(received)).map((result) => result.value!);
    expect(asAdminWs.data.datasetChanged.dataset.templates).toEqual([{ templateId, query: secret }]);
    for (const result of [overWs, overSse]) {
      expect(JSON.stringify(result)).not.toContain('SELECT city');
      expect(result.errors).toEqual([expect.objectContaining({ path: ['datasetChanged', 'dataset', 'templates'], extensions: expect.objectContaining({ code: 'FORBIDDEN' }) })]);
    }
    // The same selection over POST /graphql is refused alike.
    const overHttp = await gw.http
      .post('/graphql')
      .set(bearer(viewer))
      .send({ query: 'query($d: ID!) { dataset(id: $d, version: DRAFT) { datasetId templates { templateId query } } }', variables: { d: id } });
    expect(overHttp.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    await Promise.all([viewerWs.return?.(), adminWs.return?.(), viewerStream.return?.()]);
    viewerSse.dispose();
  });

  it('refuses queries on the subscription transport and documents that do not validate', async () => {
    const { client } = wsClient(bearer(admin));
    await expect(client.iterate({ query: '{ version }' }).next()).rejects.toEqual([expect.objectContaining({ message: expect.stringMatching(/only subscriptions run on this transport/) })]);
    await expect(client.iterate({ query: 'subscription { nope }' }).next()).rejects.toEqual([expect.objectContaining({ extensions: expect.objectContaining({ code: 'GRAPHQL_VALIDATION_FAILED' }) })]);
  });

  it('closes the connection with 4403 when its token expires', async () => {
    const shortLived = await token({ roles: ['admin'], expiresIn: 2 });
    const { client, closed } = wsClient(bearer(shortLived));
    const events = client.iterate({ query: 'subscription { datasetChanged { datasetId } }' });
    void events.next().catch(() => undefined);
    expect(await closed).toBe(4403);
  });
});

describe('hostile clients', () => {
  /** A seeded generator, so a failure can be replayed. */
  function random(seed: number) {
    let state = seed;
    return () => (state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  }

  it('answers 1,000 malformed frames with close codes and keeps serving', async () => {
    const next = random(37);
    const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!;
    const junk = (): string | Buffer => {
      const kind = Math.floor(next() * 10);
      if (kind === 0) return Buffer.from(Array.from({ length: 1 + Math.floor(next() * 64) }, () => Math.floor(next() * 256)));
      if (kind === 1) return '{"type":';
      if (kind === 2) return JSON.stringify({ type: pick(['subscribe', 'next', 'complete', 'connection_ack', 'bogus', 42, null]) });
      if (kind === 3) return JSON.stringify({ id: pick(['', 'x', 7, null]), type: 'subscribe', payload: pick([null, 'text', { query: 7 }, { query: '{' }, {}]) });
      if (kind === 4) return JSON.stringify({ type: 'connection_init', payload: pick(['text', 5, [1, 2], null]) });
      if (kind === 5) return JSON.stringify([{ type: 'ping' }]);
      if (kind === 6) return 'x'.repeat(Math.floor(next() * 1000));
      if (kind === 7) return JSON.stringify({ type: 'complete' });
      if (kind === 8) return JSON.stringify({ type: 'subscribe', id: '1', payload: { query: 'subscription { datasetChanged { datasetId } }' } });
      return JSON.stringify({ type: 'pong', payload: pick([1, 'a', [], null]) });
    };
    const codes = new Map<number, number>();
    let sent = 0;
    const connection = async () => {
      const socket = new WebSocket(wsUrl(), 'graphql-transport-ws');
      const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
      socket.on('error', () => undefined);
      await new Promise<void>((resolve) => socket.once('open', () => resolve()));
      if (next() < 0.5) socket.send(JSON.stringify({ type: 'connection_init', payload: bearer(admin) }));
      // Frames until the server closes the connection (or ten of them, then the client leaves).
      for (let i = 0; i < 10 && socket.readyState === WebSocket.OPEN && sent < 1000; i += 1) {
        socket.send(junk());
        sent += 1;
        await new Promise((resolve) => setImmediate(resolve));
      }
      if (socket.readyState === WebSocket.OPEN) socket.close(1000);
      const code = await closed;
      codes.set(code, (codes.get(code) ?? 0) + 1);
    };
    while (sent < 1000) await Promise.all(Array.from({ length: 20 }, connection));
    // Every code is the protocol's for a bad frame (4400), a frame before init (4401), refused
    // credentials (4403), a second init (4429), an id in use (4409), or a close the client made.
    expect([...codes.keys()].filter((code) => ![1000, 1005, 1006, 1007, 1009, 4400, 4401, 4403, 4409, 4429].includes(code))).toEqual([]);
    expect(codes.get(4400)).toBeGreaterThan(0);
    // Still serving, on both transports.
    expect((await graphql(gw, '{ version }')).data).toEqual({ version: expect.any(String) });
    const { client } = wsClient(bearer(admin));
    const events = client.iterate({ query: 'subscription { metricSeries(query: "vector(1)", range: 0, step: 1) { points { v } } }' });
    expect((await events.next()).value).toEqual({ data: { metricSeries: [{ points: [{ v: 1 }] }] } });
    await events.return?.();
  }, 60_000);

  it('drops a client that stops reading (4429) and ends the evaluations only it held', async () => {
    const id = unique('live_stall').replace(/-/g, '_');
    // A large record, so a few events fill the socket's buffers.
    const wide = Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`field_${i}_${'x'.repeat(60)}`, { type: 'string', description: 'y'.repeat(200) }]));
    await seedDataset(asAdmin, id, 'Draft', { data_schema: { type: 'object', properties: wide } });
    const socket = new WebSocket(wsUrl(), 'graphql-transport-ws');
    socket.on('error', () => undefined);
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
    await new Promise<void>((resolve) => socket.once('open', () => resolve()));
    socket.send(JSON.stringify({ type: 'connection_init', payload: bearer(admin) }));
    await new Promise<void>((resolve) => socket.once('message', () => resolve()));
    const before = gw.gateway.subscriptions.stats().evaluations;
    const socketsBefore = gw.gateway.subscriptions.stats().webSockets - 1;
    // Fifty distinct subscriptions on one connection, each sent every change of the dataset in full.
    for (let i = 0; i < 50; i += 1) {
      socket.send(
        JSON.stringify({ id: `s${i}`, type: 'subscribe', payload: { query: `subscription S${i}($id: String) { datasetChanged(datasetId: $id) { dataset { dataSchema } } }`, variables: { id } } }),
      );
    }
    await subscribed(before + 50);
    // The client stops reading: its TCP window closes, the gateway's sends stop completing.
    (socket as unknown as { _socket: { pause(): void; resume(): void } })._socket.pause();
    for (let i = 0; i < 40 && gw.gateway.subscriptions.stats().evaluations > before; i += 1) {
      await gw.sql(`UPDATE datasets SET name = $2, updated_date = clock_timestamp() WHERE dataset_id = $1`, [id, `Stalled ${i}`]);
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
    // Dropped: its fifty evaluations are gone, and the gateway still serves others.
    while (gw.gateway.subscriptions.stats().evaluations > before) await new Promise((resolve) => setTimeout(resolve, 50));
    // The close frame (4429) waits behind what the client never read, so the client sees the cut (1006).
    (socket as unknown as { _socket: { resume(): void } })._socket.resume();
    expect([4429, 1006]).toContain(await closed);
    while (gw.gateway.subscriptions.stats().webSockets > socketsBefore) await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await graphql(gw, '{ version }')).data).toEqual({ version: expect.any(String) });
  }, 60_000);
});
