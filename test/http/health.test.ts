// Liveness and readiness, including a database that really goes away (connections refused and the
// open ones terminated) and comes back.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { DATABASE_UNAVAILABLE_MESSAGE } from '../../src/platform/database/errors.js';
import { envelope, graphql, SQL_QUERY, UUID_PATTERN } from '../support/api.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

// This file never uses gw.sql: its pool has no error listener, and the terminations below would
// reach its idle connection. Admin work goes through a short-lived client on the admin database.
let gw: TestGateway;
let databaseName: string;

async function onAdminDatabase(statements: string[]): Promise<void> {
  const url = process.env.TEST_PG_ADMIN_URL;
  if (!url) throw new Error('TEST_PG_ADMIN_URL is not set: run the tests with `npm test`');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const statement of statements) await client.query(statement);
  } finally {
    await client.end();
  }
}

/** Refuses new connections to this file's database and ends the gateway's open ones. */
function cutDatabase(): Promise<void> {
  return onAdminDatabase([
    `ALTER DATABASE "${databaseName}" ALLOW_CONNECTIONS false`,
    // The second argument waits (up to 5 s) until each backend has really gone.
    `SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE datname = '${databaseName}' AND pid <> pg_backend_pid()`,
  ]);
}

function restoreDatabase(): Promise<void> {
  return onAdminDatabase([`ALTER DATABASE "${databaseName}" ALLOW_CONNECTIONS true`]);
}

/** Polls `probe` until it returns true (the pool may hand out one dying connection first). */
async function eventually(probe: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`condition not reached within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

beforeAll(async () => {
  gw = await startTestGateway();
  databaseName = new URL(gw.databaseUrl).pathname.slice(1);
  expect(databaseName).toMatch(/^[a-z0-9_]+$/);
  const created = await gw.http.post('/v2/template/create').send(envelope('api.query.template.create', { template_name: 'Health Probe', query_type: 'sql', query: SQL_QUERY }));
  expect(created.status).toBe(200);
});
afterAll(async () => {
  // Whatever happened above, let teardown drop the database.
  if (databaseName) await restoreDatabase().catch(() => undefined);
  await gw?.stop();
});

describe('with the database up', () => {
  it('answers GET /healthz with 200 {status: "ok"}', async () => {
    const response = await gw.http.get('/healthz');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.body).toEqual({ status: 'ok' });
  });

  it('answers GET /readyz with 200 when the database answers', async () => {
    const response = await gw.http.get('/readyz');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: 'ready', checks: { database: 'ok' } });
  });

  it('gives health responses an x-request-id like every other response', async () => {
    const response = await gw.http.get('/healthz');
    expect(response.headers['x-request-id']).toMatch(UUID_PATTERN);
  });

  it('sends nosniff, no framing and no referrer on every kind of answer: pages, API, errors, metrics', async () => {
    const answers = await Promise.all([
      gw.http.get('/graphql').set('accept', 'text/html'),
      gw.http.get('/docs/'),
      gw.http.get('/openapi.json'),
      gw.http.get('/metrics'),
      gw.http.get('/healthz'),
      gw.http.post('/graphql').set('content-type', 'application/json').send({ query: '{ version }' }),
      gw.http.post('/v2/template/list').send(envelope('api.query.template.list', {})),
      gw.http.get('/v2/no/such/route'),
    ]);
    for (const response of answers) {
      const { req } = response as unknown as { req: { path: string } };
      expect({
        path: req.path,
        status: response.status < 500,
        nosniff: response.headers['x-content-type-options'],
        frame: response.headers['x-frame-options'],
        referrer: response.headers['referrer-policy'],
      }).toEqual({
        path: req.path,
        status: true,
        nosniff: 'nosniff',
        frame: 'DENY',
        referrer: 'no-referrer',
      });
    }
  });
});

describe('with the database unreachable', () => {
  beforeAll(async () => {
    // Open connections first, so the cut also kills connections the gateway is holding.
    expect((await gw.http.get('/v2/template/read/health_probe')).status).toBe(200);
    await cutDatabase();
    await eventually(async () => (await gw.http.get('/readyz')).status === 503);
  });
  afterAll(async () => {
    await restoreDatabase();
  });

  it('answers GET /readyz with 503 and a reason naming the database', async () => {
    const response = await gw.http.get('/readyz');
    expect(response.status).toBe(503);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.body.status).not.toBe('ready');
    expect(typeof response.body.checks?.database).toBe('string');
    expect(response.body.checks.database).not.toBe('ok');
    expect(response.body.checks.database).toContain(databaseName);
  });

  it('keeps answering GET /healthz with 200 (the process is alive)', async () => {
    const response = await gw.http.get('/healthz');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: 'ok' });
  });

  it('answers a REST template read with 503 DATABASE_UNAVAILABLE, a retry hint and no stack trace', async () => {
    const response = await gw.http.get('/v2/template/read/health_probe').set('x-request-id', 'db-down-1');
    expect(response.status).toBe(503);
    expect(Object.keys(response.body).sort()).toEqual(['error', 'id', 'params', 'responseCode', 'result', 'ts', 'ver']);
    expect(response.body).toMatchObject({
      id: 'api.query.template.read',
      ver: 'v2',
      params: { status: 'FAILED' },
      responseCode: 'SERVICE_UNAVAILABLE',
      error: { code: 'DATABASE_UNAVAILABLE', message: DATABASE_UNAVAILABLE_MESSAGE, trace: '' },
      result: {},
    });
    expect(response.text).not.toContain(databaseName);
    expect(response.text).not.toMatch(/\n\s+at |node_modules|prisma|accepting connections/i);
    expect(response.headers['x-request-id']).toBe('db-down-1');
  });

  it('answers a GraphQL template query with DATABASE_UNAVAILABLE and a retry hint, no stack trace', async () => {
    const response = await graphql(gw, '{ template(id: "health_probe") { id name } }');
    expect(response.status).toBe(200);
    expect(response.errors?.[0]?.message).toBe(DATABASE_UNAVAILABLE_MESSAGE);
    expect(response.errors?.[0]?.extensions).toEqual({ code: 'DATABASE_UNAVAILABLE', responseCode: 'SERVICE_UNAVAILABLE' });
    expect(JSON.stringify(response.errors)).not.toContain(databaseName);
  });

  it('still answers GraphQL queries that need no database', async () => {
    const response = await graphql(gw, '{ version }');
    expect(response.status).toBe(200);
    expect(response.data).toEqual({ version: expect.any(String) });
  });

  it('keeps serving /healthz after several failed database calls', async () => {
    await Promise.all(Array.from({ length: 5 }, () => gw.http.get('/v2/template/read/health_probe')));
    const response = await gw.http.get('/healthz');
    expect(response.status).toBe(200);
  });
});

describe('after the database comes back', () => {
  it('answers GET /readyz with 200 again', async () => {
    await eventually(async () => (await gw.http.get('/readyz')).status === 200);
    const response = await gw.http.get('/readyz');
    expect(response.body).toEqual({ status: 'ready', checks: { database: 'ok' } });
  });

  it('serves the template that was there before', async () => {
    const response = await gw.http.get('/v2/template/read/health_probe');
    expect(response.status).toBe(200);
    expect(response.body.result).toMatchObject({ template_id: 'health_probe', template_name: 'Health Probe' });
  });
});
