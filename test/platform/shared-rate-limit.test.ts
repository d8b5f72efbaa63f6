// RATE_LIMIT_STORE=postgres (the default with DATABASE_URL): copies of the gateway on one database
// share one budget per caller, whichever copy a call reaches (two in-process copies here; the
// scale-out test does the same through HAProxy). With memory each copy keeps its own.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import supertest from 'supertest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startGateway, type Gateway } from '../../src/server.js';
import { envelope, SQL_QUERY } from '../support/api.js';
import { JWT_ENV, token } from '../support/auth.js';
import { createTestDatabase } from '../support/gateway.js';

const BURST = 6;
let database: Awaited<ReturnType<typeof createTestDatabase>>;
const copies: Gateway[] = [];

// A budget that refills once in 1,000 s: the burst is all a caller gets during the test.
const start = (env: Record<string, string> = {}) =>
  startGateway(
    loadConfig({
      DATABASE_URL: database.url,
      HOST: '127.0.0.1',
      PORT: '0',
      NODE_ENV: 'test',
      DB_POOL_MAX: '3',
      METRICS_SAMPLE_INTERVAL_SECONDS: '0',
      ALERT_EVALUATION_TICK_SECONDS: '0',
      RATE_LIMIT_RPS: '0.001',
      RATE_LIMIT_BURST: String(BURST),
      RATE_LIMIT_INGEST_RPS: '0.001',
      RATE_LIMIT_INGEST_BURST: '2',
      ...env,
    }),
    createLogger('silent'),
  ).then((gateway) => {
    copies.push(gateway);
    return gateway;
  });

beforeAll(async () => {
  database = await createTestDatabase();
}, 30_000);
afterAll(async () => {
  for (const copy of copies) await copy.stop();
  await database?.drop();
});

const listTemplates = (gateway: Gateway) => supertest(gateway.url).post('/v2/template/list').send(envelope('api.query.template.list', {}));
const graphqlTemplates = (gateway: Gateway) => supertest(gateway.url).post('/graphql').send({ query: '{ templates { totalCount } }' });

describe('rate limits kept in PostgreSQL', () => {
  it('gives a caller one budget over two copies: REST and GraphQL calls spread over both meet exactly one 429 after the burst', async () => {
    const [a, b] = [await start(), await start()];
    const statuses: number[] = [];
    for (let call = 0; call < BURST; call += 1) statuses.push((await (call % 2 === 0 ? listTemplates(a) : graphqlTemplates(b))).status);
    expect(statuses).toEqual(Array(BURST).fill(200));
    const refused = await listTemplates(b);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ params: { status: 'FAILED' }, error: { code: 'RATE_LIMITED' } });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(100);
    const refusedGraphql = await graphqlTemplates(a);
    expect(refusedGraphql.status).toBe(429);
    expect(refusedGraphql.body.errors[0].extensions.code).toBe('RATE_LIMITED');
    // Ingestion has a budget of its own, shared the same way.
    const ingest = (gateway: Gateway) =>
      supertest(gateway.url)
        .post('/v2/data/in/nowhere')
        .send({ data: [{ id: 1 }] });
    const ingested = [(await ingest(a)).status, (await ingest(b)).status, (await ingest(a)).status];
    expect(ingested.slice(0, 2)).not.toContain(429);
    expect(ingested[2]).toBe(429);
  }, 60_000);

  it('charges a GraphQL operation by its cost in the shared store, and rateLimit reads what is left whichever copy answers', async () => {
    const [a, b] = [await start({ GRAPHQL_COST_PER_TOKEN: '10', RATE_LIMIT_BURST: '20' }), await start({ GRAPHQL_COST_PER_TOKEN: '10', RATE_LIMIT_BURST: '20' })];
    const ask = (gateway: Gateway, query: string) => supertest(gateway.url).post('/graphql').send({ query });
    const RATE_LIMIT = 'rateLimit { limit cost remaining }';
    // The one caller (AUTH_MODE=none) spent its budget in the test above: it starts again full.
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    await client.query("DELETE FROM rate_limit_buckets WHERE key LIKE 'general:%'");
    await client.end();
    // 1 + (1 + 50 × 1) for the list and 4 for rateLimit: 56, so 6 tokens.
    const costly = await ask(a, `{ templates(first: 50) { nodes { templateId } } ${RATE_LIMIT} }`);
    expect(costly.body.extensions.cost).toBe(56);
    expect(costly.body.data.rateLimit).toEqual({ limit: 20, cost: 6, remaining: 14 });
    expect((await ask(b, `{ ${RATE_LIMIT} }`)).body.data.rateLimit).toEqual({ limit: 20, cost: 1, remaining: 13 });
    for (const gateway of [a, b]) expect((await ask(gateway, `{ templates(first: 50) { nodes { templateId } } ${RATE_LIMIT} }`)).status).toBe(200);
    const refused = await ask(a, `{ templates(first: 50) { nodes { templateId } } }`);
    expect(refused.status).toBe(429);
    expect(refused.body.errors[0].extensions.code).toBe('RATE_LIMITED');
    const overBudget = await ask(b, `{ templates(first: 500) { nodes { templateId } } }`);
    expect(overBudget.status).toBe(429);
    expect(overBudget.body.errors[0].extensions.code).toBe('QUERY_COST_OVER_RATE_LIMIT');
  }, 60_000);

  it('with RATE_LIMIT_STORE=memory each copy keeps its own budget', async () => {
    const [a, b] = [await start({ RATE_LIMIT_STORE: 'memory' }), await start({ RATE_LIMIT_STORE: 'memory' })];
    for (let call = 0; call < BURST; call += 1) expect((await listTemplates(a)).status).toBe(200);
    expect((await listTemplates(a)).status).toBe(429);
    expect((await listTemplates(b)).status).toBe(200);
  }, 60_000);

  describe('with callers of their own (JWT)', () => {
    // One copy serves kept reads on its fast path, the other only on the normal path.
    const startPair = async (burst: number) => {
      const env = { ...JWT_ENV, RATE_LIMIT_RPS: '0.01', RATE_LIMIT_BURST: String(burst) };
      const pair = [await start(env), await start({ ...env, FAST_PATH: 'false' })] as const;
      const seeder = `Bearer ${await token({ sub: `seeder-${burst}` })}`;
      const created = await supertest(pair[0].url)
        .post('/v2/template/create')
        .set('authorization', seeder)
        .send(envelope('api.query.template.create', { template_name: `Shared budget ${burst}`, query_type: 'sql', query: SQL_QUERY }));
      expect(created.status).toBe(200);
      return { pair, templateId: (created.body as { result: { template_id: string } }).result.template_id };
    };
    const bearer = async (sub: string) => `Bearer ${await token({ sub })}`;

    it("answers a fresh caller's first read on the second copy while another caller's budget is spent, and refuses the spender there too", async () => {
      const { pair, templateId } = await startPair(4);
      const [a, b] = pair;
      const reads = {
        rest: (gateway: Gateway, authorization: string) => supertest(gateway.url).get(`/v2/template/read/${templateId}`).set('authorization', authorization),
        graphql: (gateway: Gateway, authorization: string) =>
          supertest(gateway.url)
            .post('/graphql')
            .set('authorization', authorization)
            .send({ query: 'query Read($id: ID!) { template(id: $id) { templateId } }', variables: { id: templateId } }),
      };
      for (const [kind, read] of Object.entries(reads)) {
        const spender = await bearer(`spender-${kind}`);
        const fresh = await bearer(`fresh-${kind}`);
        const spent: number[] = [];
        for (let call = 0; call < 5; call += 1) spent.push((await read(a, spender)).status);
        expect(spent).toEqual([200, 200, 200, 200, 429]);
        const first = await read(b, fresh);
        expect(first.status).toBe(200);
        if (kind === 'rest') expect(first.body).toMatchObject({ result: { template_id: templateId } });
        else expect(first.body.data).toEqual({ template: { templateId } });
        const rest: number[] = [];
        for (const gateway of [a, b, a, b]) rest.push((await read(gateway, fresh)).status);
        expect(rest).toEqual([200, 200, 200, 429]);
        expect((await read(b, spender)).status).toBe(429);
      }
    }, 60_000);

    it('decides concurrent calls of several callers over two copies exactly: each caller gets its burst and no more', async () => {
      const BURST_EACH = 10;
      const { pair, templateId } = await startPair(BURST_EACH);
      const callers = await Promise.all(['x', 'y', 'z'].map((name) => bearer(`concurrent-${name}`)));
      // Every call at once, alternating copies, so each copy's decisions arrive together.
      const calls = callers.flatMap((authorization) =>
        Array.from({ length: BURST_EACH + 4 }, (_, index) =>
          supertest(pair[index % 2]!.url)
            .get(`/v2/template/read/${templateId}`)
            .set('authorization', authorization)
            .then((response) => ({ authorization, status: response.status })),
        ),
      );
      const answers = await Promise.all(calls);
      for (const authorization of callers) {
        const statuses = answers.filter((answer) => answer.authorization === authorization).map((answer) => answer.status);
        expect(statuses.filter((status) => status === 200)).toHaveLength(BURST_EACH);
        expect(statuses.filter((status) => status === 429)).toHaveLength(4);
      }
    }, 60_000);
  });
});
