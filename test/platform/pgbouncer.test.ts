// The gateway's pool through a real PgBouncer in transaction mode (Debian package `pgbouncer`):
// with DATABASE_LISTEN_URL on a direct connection the caches fill and empty as without it; without
// it LISTEN succeeds but hears nothing, and the gateway caches nothing rather than serve stale records.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { Writable } from 'node:stream';
import pg from 'pg';
import supertest from 'supertest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startGateway, type Gateway } from '../../src/server.js';
import { envelope } from '../support/api.js';
import { seedDataset } from '../support/datasets.js';
import { createTestDatabase, type TestGateway } from '../support/gateway.js';
import { PGBOUNCER, startPgBouncer, type PgBouncer } from '../support/pgbouncer.js';
import { describeWhenInstalled } from '../support/skip.js';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let bouncer: PgBouncer;
let direct: pg.Pool;
const started: Gateway[] = [];

beforeAll(async () => {
  if (!PGBOUNCER) return;
  database = await createTestDatabase();
  bouncer = await startPgBouncer(database.url);
  direct = new pg.Pool({ connectionString: database.url, max: 1 });
}, 30_000);
afterAll(async () => {
  for (const gateway of started) await gateway.stop();
  await direct?.end();
  await bouncer?.stop();
  await database?.drop();
});

async function gatewayThroughBouncer(env: Record<string, string>): Promise<{ gw: TestGateway; log: () => string }> {
  let log = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      log += chunk.toString();
      done();
    },
  });
  const config = loadConfig({ DATABASE_URL: bouncer.urlFor(database.url), HOST: '127.0.0.1', PORT: '0', NODE_ENV: 'test', DB_POOL_MAX: '4', METRICS_SAMPLE_INTERVAL_SECONDS: '0', ...env });
  const gateway = await startGateway(config, createLogger('info', stream));
  started.push(gateway);
  const gw: TestGateway = {
    url: gateway.url,
    gateway,
    http: supertest(gateway.url),
    databaseUrl: database.url,
    sql: async (text, values) => {
      const result = await direct.query(text, values);
      await gateway.database.changes.sync();
      return result;
    },
    stop: () => gateway.stop(),
  };
  return { gw, log: () => log };
}

const statementsOf = async (gw: TestGateway, work: () => Promise<unknown>) => {
  const before = gw.gateway.database.statementCount();
  await work();
  return gw.gateway.database.statementCount() - before;
};

/** Transactions PgBouncer carried to this file's database so far (its admin console's SHOW STATS). */
async function bouncedTransactions(): Promise<number> {
  const admin = new pg.Client({ connectionString: bouncer.adminUrl });
  await admin.connect();
  try {
    // The admin console speaks the simple protocol only.
    const stats = await admin.query<{ database: string; total_xact_count: string }>({ text: 'SHOW STATS', queryMode: 'simple' } as pg.QueryConfig);
    return Number(stats.rows.find((row) => row.database === database.name)?.total_xact_count ?? 0);
  } finally {
    await admin.end();
  }
}

describeWhenInstalled(PGBOUNCER, 'pgbouncer')('the pool behind PgBouncer in transaction mode', () => {
  it('with DATABASE_LISTEN_URL on a direct connection: caches fill, and empty when another writer changes a record', async () => {
    const { gw, log } = await gatewayThroughBouncer({ DATABASE_LISTEN_URL: database.url });
    // main.ts logs this line at start-up.
    expect(gw.gateway.database.description).toContain('announcements (LISTEN) over DATABASE_LISTEN_URL');
    expect(log()).not.toContain('never arrived');
    expect(gw.gateway.database.changes.listening).toBe(true);
    const bouncedBefore = await bouncedTransactions();
    await seedDataset(gw, 'bounced', 'Live');
    expect(await bouncedTransactions()).toBeGreaterThan(bouncedBefore);

    expect((await gw.http.get('/v2/datasets/read/bounced')).body.result.name).toBe('Dataset bounced');
    // Filled: the second read costs no statement.
    expect(await statementsOf(gw, async () => expect((await gw.http.get('/v2/datasets/read/bounced')).status).toBe(200))).toBe(0);
    // Emptied: a change committed by someone else (not through this gateway) is announced and read anew.
    await gw.sql("UPDATE datasets SET name = 'renamed elsewhere' WHERE dataset_id = 'bounced'");
    expect((await gw.http.get('/v2/datasets/read/bounced')).body.result.name).toBe('renamed elsewhere');
    expect(await statementsOf(gw, async () => expect((await gw.http.get('/v2/datasets/read/bounced')).body.result.name).toBe('renamed elsewhere'))).toBe(0);
  }, 30_000);

  it('without it: says that announcements never arrive, caches nothing, and every read shows the last committed change', async () => {
    const { gw, log } = await gatewayThroughBouncer({});
    expect(gw.gateway.database.description).toContain('announcements (LISTEN) over the same URL');
    expect(log()).toContain('a notification sent from the pool never arrived');
    expect(gw.gateway.database.changes.listening).toBe(false);
    await seedDataset(gw, 'unheard', 'Live');
    expect((await gw.http.get('/v2/datasets/read/unheard')).body.result.name).toBe('Dataset unheard');
    await direct.query("UPDATE datasets SET name = 'renamed unheard' WHERE dataset_id = 'unheard'");
    expect((await gw.http.get('/v2/datasets/read/unheard')).body.result.name).toBe('renamed unheard');
    expect(await statementsOf(gw, () => gw.http.get('/v2/datasets/read/unheard'))).toBeGreaterThan(0);
  }, 30_000);

  it("ingests and answers a dataset's health from two gateways at once: every call 200, every event stored (no named statement meets a server connection that never saw it)", async () => {
    // Two gateways' connections take turns on PgBouncer's server connections (5), as copies behind a load balancer do.
    const gateways = [await gatewayThroughBouncer({ DATABASE_LISTEN_URL: database.url }), await gatewayThroughBouncer({ DATABASE_LISTEN_URL: database.url })].map(({ gw }) => gw);
    // Without dedup, an event is stored by the one-statement path (embedded-store.ts).
    await seedDataset(gateways[0]!, 'bounced-ingest', 'Live', { dedup_config: { drop_duplicates: false, dedup_key: 'id', dedup_period: 604800 } });
    const calls = Array.from({ length: 80 }, (_, n) =>
      gateways[n % 2]!.http.post('/v2/data/in/bounced-ingest').send({ ...envelope('api.data.in', undefined, `bounced-${n}`), data: [{ id: `e${n}`, ts: new Date().toISOString() }] }),
    );
    const health = Array.from({ length: 20 }, (_, n) => gateways[n % 2]!.http.post('/graphql').send({ query: '{ dataset(id: "bounced-ingest") { health { status } } }' }));
    const answers = await Promise.all([...calls, ...health]);
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
    expect(answers.slice(calls.length).map((answer) => answer.body.errors)).toEqual(health.map(() => undefined));
    const stored = await direct.query<{ count: number }>("SELECT count(*)::int AS count FROM events WHERE dataset_id = 'bounced-ingest'");
    expect(stored.rows[0]!.count).toBe(80);
  });

  it('decides shared rate limits through it: burst + 1 calls of one caller over two gateways meet exactly one 429, and no gateway falls back to deciding alone', async () => {
    const env = { DATABASE_LISTEN_URL: database.url, RATE_LIMIT_STORE: 'postgres', RATE_LIMIT_RPS: '0.001', RATE_LIMIT_BURST: '3' };
    const copies = [await gatewayThroughBouncer(env), await gatewayThroughBouncer(env)];
    const statuses: number[] = [];
    for (const index of [0, 1, 0, 1]) statuses.push((await copies[index]!.gw.http.post('/v2/template/list').send(envelope('api.query.template.list', {}))).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    for (const { log } of copies) expect(log()).not.toContain('the shared store did not answer');
  }, 30_000);
});
