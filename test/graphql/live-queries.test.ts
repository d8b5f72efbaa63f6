// Live queries (`subscription { live { ... } }`) over real transports: a graphql-ws client and a
// graphql-sse client on one gateway, changes made on a second copy sharing its database. The first
// result is the answer; later ones come when the answer changed, never for a change that leaves it
// as it was; the caller's own access decides, as for the query twin.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createClient as createSseClient } from 'graphql-sse';
import { createClient as createWsClient, type Client } from 'graphql-ws';
import supertest from 'supertest';
import WebSocket from 'ws';
import { JWT_ENV, token } from '../support/auth.js';
import { seedDataset, transition } from '../support/datasets.js';
import { startCopy, startTestGateway, type TestGateway } from '../support/gateway.js';
import { seedTemplate } from '../support/templates.js';
import { unique } from '../support/ingestion.js';
import { type Gateway } from '../../src/server.js';

const MIN_INTERVAL_MS = 300;
const MAX_COST = 2_000;

let gw: TestGateway;
/** A second copy on the same database, where the changes are made. */
let copy: Gateway;
/** The copy, with an admin's token on every request. */
let onCopy: TestGateway;
let admin: string;
const clients: Client[] = [];

beforeAll(async () => {
  gw = await startTestGateway({ ...JWT_ENV, LIVE_QUERY_MIN_INTERVAL_MS: String(MIN_INTERVAL_MS), GRAPHQL_MAX_COST: String(MAX_COST) });
  copy = await startCopy(gw, { ...JWT_ENV, METRICS_SAMPLE_INTERVAL_SECONDS: '0' });
  admin = await token({ roles: ['admin'], expiresIn: 3600 });
  onCopy = { ...gw, url: copy.url, http: supertest.agent(copy.url).set('authorization', `Bearer ${admin}`) };
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map(async (client) => client.dispose()));
  await copy?.stop();
  await gw?.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function wsClient(bearer: string): Client {
  const client = createWsClient({ url: `${gw.url.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${bearer}` }, lazy: false, retryAttempts: 0 });
  clients.push(client);
  return client;
}

const PAGE = 'subscription($ids: [String!]) { live { datasets(where: { datasetId: { in: $ids } }, first: 50) { totalCount nodes { datasetId status } } } }';

interface Page {
  live: { datasets: { totalCount: number; nodes: { datasetId: string; status: string }[] } };
}

/** The live-query readings /metrics counts, and how many of them waited at most 0.5 s for the interval. */
async function liveReadingFigures(): Promise<{ readings: number; heldWithinHalfSecond: number }> {
  const text = (await gw.http.get('/metrics').expect(200)).text;
  const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? NaN);
  return {
    readings: value(/^gateway_live_query_reading_seconds_count (\S+)$/m),
    heldWithinHalfSecond: value(/^gateway_live_query_hold_seconds_bucket\{le="0\.5"\} (\S+)$/m),
  };
}

/** Results of a subscription as they come, and a way to wait for the next ones. */
function collect<T>(events: AsyncIterableIterator<{ data?: T | null; errors?: readonly unknown[] }>) {
  const received: { data?: T | null; errors?: readonly unknown[] }[] = [];
  const failed: unknown[] = [];
  void (async () => {
    try {
      for await (const result of events) received.push(result);
    } catch (error) {
      failed.push(error);
    }
  })();
  return {
    received,
    failed,
    async count(n: number, withinMs = 10_000) {
      const until = Date.now() + withinMs;
      while (received.length < n && failed.length === 0 && Date.now() < until) await sleep(10);
      if (failed.length > 0) throw new Error(`the subscription failed: ${JSON.stringify(failed[0])}`);
      if (received.length < n) throw new Error(`${received.length} results came within ${withinMs} ms, not ${n}: ${JSON.stringify(received)}`);
      return received[n - 1]!;
    },
    stop: () => events.return?.(),
  };
}

describe('a live query', () => {
  it('over graphql-ws: the page first, then the page again as datasets are created and change status on another copy', async () => {
    const ids = [unique('lq_a'), unique('lq_b')].map((id) => id.replace(/-/g, '_'));
    const page = collect<Page>(wsClient(admin).iterate<Page>({ query: PAGE, variables: { ids } }));
    expect((await page.count(1)).data!.live.datasets).toEqual({ totalCount: 0, nodes: [] });

    await seedDataset(onCopy, ids[0]!, 'Draft');
    const created = await page.count(2);
    expect(created.data!.live.datasets).toEqual({ totalCount: 1, nodes: [{ datasetId: ids[0], status: 'DRAFT' }] });

    await transition(onCopy, ids[0]!, 'ReadyToPublish');
    const transitioned = await page.count(3);
    expect(transitioned.data!.live.datasets.nodes).toEqual([{ datasetId: ids[0], status: 'READY_TO_PUBLISH' }]);
    await page.stop();
  });

  it('over SSE: the same, on the stream endpoint', async () => {
    const id = unique('lq_sse').replace(/-/g, '_');
    const sse = createSseClient({ url: `${gw.url}/graphql/stream`, headers: { authorization: `Bearer ${admin}` }, retryAttempts: 0 });
    const page = collect<Page>(sse.iterate<Page>({ query: PAGE, variables: { ids: [id] } }));
    expect((await page.count(1)).data!.live.datasets.totalCount).toBe(0);
    await seedDataset(onCopy, id, 'ReadyToPublish');
    // One or two results (the import and the transition may be read together), the last one current.
    await page.count(2);
    const until = Date.now() + 10_000;
    while (page.received.at(-1)!.data!.live.datasets.nodes[0]?.status !== 'READY_TO_PUBLISH' && Date.now() < until) await sleep(20);
    expect(page.received.at(-1)!.data!.live.datasets.nodes).toEqual([{ datasetId: id, status: 'READY_TO_PUBLISH' }]);
    await page.stop();
    sse.dispose();
  });

  it('sends nothing when a change leaves its answer as it was, and shares one evaluation among callers of the same access', async () => {
    const [watched, other] = [unique('lq_watched'), unique('lq_other')].map((id) => id.replace(/-/g, '_'));
    await seedDataset(onCopy, watched!, 'Draft');
    await gw.gateway.database.changes.sync();
    const before = gw.gateway.subscriptions.stats().evaluations;
    const first = collect<Page>(wsClient(admin).iterate<Page>({ query: PAGE, variables: { ids: [watched] } }));
    const second = collect<Page>(wsClient(await token({ sub: unique('other-admin'), roles: ['admin'], expiresIn: 600 })).iterate<Page>({ query: PAGE, variables: { ids: [watched] } }));
    expect((await first.count(1)).data!.live.datasets.nodes).toEqual([{ datasetId: watched, status: 'DRAFT' }]);
    expect((await second.count(1)).data).toEqual(first.received[0]!.data);
    expect(gw.gateway.subscriptions.stats().evaluations).toBe(before + 1);

    // Another dataset of the same table changes: the answer is read again, and is the same.
    await seedDataset(onCopy, other!, 'ReadyToPublish');
    await sleep(MIN_INTERVAL_MS * 4);
    expect(first.received).toHaveLength(1);
    expect(second.received).toHaveLength(1);

    await transition(onCopy, watched!, 'ReadyToPublish');
    expect((await first.count(2)).data!.live.datasets.nodes).toEqual([{ datasetId: watched, status: 'READY_TO_PUBLISH' }]);
    expect((await second.count(2)).data).toEqual(first.received[1]!.data);
    await first.stop();
    await second.stop();
  });

  it('reads changes that come together once, at most once per LIVE_QUERY_MIN_INTERVAL_MS, and ends on the current answer', async () => {
    const ids = Array.from({ length: 5 }, (_, n) => unique(`lq_burst_${n}`).replace(/-/g, '_'));
    const page = collect<Page>(wsClient(admin).iterate<Page>({ query: PAGE, variables: { ids } }));
    await page.count(1);
    const readingsBefore = await liveReadingFigures();
    const startedAt = Date.now();
    await Promise.all(ids.map((id) => seedDataset(onCopy, id, 'Draft')));
    const until = Date.now() + 10_000;
    while (page.received.at(-1)!.data!.live.datasets.totalCount < 5 && Date.now() < until) await sleep(20);
    const elapsed = Date.now() - startedAt;
    expect(page.received.at(-1)!.data!.live.datasets.totalCount).toBe(5);
    // Five imports: never more results than readings the interval allows in that time (plus the first).
    expect(page.received.length - 1).toBeLessThanOrEqual(Math.ceil(elapsed / MIN_INTERVAL_MS) + 1);
    expect(page.received.length - 1).toBeLessThan(5);
    // /metrics tells an operator where the time went: each reading a change caused, its wait for the
    // interval (never longer than it, give or take a timer's slack) apart from the reading itself.
    const readings = await liveReadingFigures();
    expect(readings.readings - readingsBefore.readings).toBeGreaterThanOrEqual(page.received.length - 1);
    expect(readings.heldWithinHalfSecond - readingsBefore.heldWithinHalfSecond).toBe(readings.readings - readingsBefore.readings);
    await page.stop();
  });

  it("is the caller's: a viewer is refused a Query field its role does not read, and gets FORBIDDEN, not the SQL, on a linked template", async () => {
    const viewer = await token({ sub: unique('lq-viewer'), roles: ['viewer'], expiresIn: 600 });
    const client = wsClient(viewer);
    const refused = collect(client.iterate({ query: 'subscription { live { templates(first: 5) { nodes { query } } } }' }));
    await expect(refused.count(1, 5_000)).rejects.toThrow(/"code":"FORBIDDEN"/);

    const id = unique('lq_linked').replace(/-/g, '_');
    await seedDataset(onCopy, id, 'Live');
    const secret = `SELECT city FROM {{DATASET}} JOIN ${id} USING (id) WHERE __time BETWEEN {{STARTDATE}} AND {{ENDDATE}} LIMIT {{LIMIT}}`;
    await seedTemplate(onCopy, `live secret ${id.slice(-8)}`.replace(/_/g, ''), 'sql', secret);
    await gw.gateway.database.changes.sync();
    const operation = { query: 'subscription($id: ID!) { live { dataset(id: $id) { datasetId templates { templateId query } } } }', variables: { id } };
    const linked = collect<{ live: { dataset: { datasetId: string; templates: unknown } | null } }>(client.iterate(operation));
    const result = await linked.count(1);
    expect(result.errors).toEqual([expect.objectContaining({ extensions: expect.objectContaining({ code: 'FORBIDDEN' }) })]);
    expect(JSON.stringify(result)).not.toContain(`JOIN ${id}`);
    // The same live query of an admin (another access, another evaluation) holds the SQL.
    const asAdmin = collect<{ live: { dataset: { templates: { query: string }[] } } }>(wsClient(admin).iterate(operation));
    expect((await asAdmin.count(1)).data!.live.dataset.templates.map((template) => template.query)).toEqual([secret]);
    await linked.stop();
    await asAdmin.stop();
  });

  it('is refused as its query twin when it costs more than GRAPHQL_MAX_COST', async () => {
    const selection = Array.from({ length: 30 }, (_, n) => `d${n}: datasets(first: 100) { nodes { datasetId name status } }`).join(' ');
    const twin = await supertest(gw.url)
      .post('/graphql')
      .set('authorization', `Bearer ${admin}`)
      .send({ query: `query { ${selection} }` });
    expect(twin.body.errors[0]).toMatchObject({
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
      message: expect.stringMatching(/^The operation costs \d+; at most 2000 is allowed \(GRAPHQL_MAX_COST\)\./),
    });
    const refused = collect(wsClient(admin).iterate({ query: `subscription { live { ${selection} } }` }));
    await expect(refused.count(1, 5_000)).rejects.toThrow(/The operation costs \d+; at most 2000 is allowed.*GRAPHQL_VALIDATION_FAILED/);
  });
});
