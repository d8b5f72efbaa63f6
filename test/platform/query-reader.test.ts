// The role template queries run as (src/platform/database/query-reader.ts): made by the gateway when
// its user may create roles, shared by every gateway on the database, able to read the datasource
// views and nothing else; an operator's role through QUERY_DATABASE_URL; and a loud warning, not a
// failure, when neither is possible.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { createLogger } from '../../src/logger.js';
import { quoteIdentifier } from '../../src/platform/database/embedded.js';
import { openQueryReader, type QueryReader } from '../../src/platform/database/query-reader.js';
import { createTestDatabase } from '../support/gateway.js';
import { lineCollector } from '../support/log-lines.js';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let main: pg.Pool;
const opened: QueryReader[] = [];
const pools: pg.Pool[] = [];
const logs = lineCollector();
const logger = createLogger('info', logs.stream);

const createPool = (url: string) => {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  pools.push(pool);
  return pool;
};

beforeAll(async () => {
  database = await createTestDatabase();
  main = new pg.Pool({ connectionString: database.url, max: 4 });
  await main.query(`CREATE VIEW datasources.reader_probe AS SELECT 1 AS one`);
});
afterAll(async () => {
  await Promise.all(opened.map((reader) => reader.close().catch(() => undefined)));
  await Promise.all(pools.map((pool) => pool.end().catch(() => undefined)));
  await main?.end();
  await database?.drop();
});

async function open(pool: pg.Pool, explicitUrl?: string): Promise<QueryReader> {
  const reader = await openQueryReader(pool, { url: database.url, ...(explicitUrl ? { explicitUrl } : {}), createPool }, logger);
  opened.push(reader);
  return reader;
}

/** What a statement on the pool gives: its rows, or the error message. */
async function attempt(pool: pg.Pool, sql: string): Promise<unknown> {
  return pool.query(sql).then(
    (result) => result.rows,
    (error: Error) => error.message,
  );
}

describe('with a database user that may create roles', () => {
  it('runs template queries as a role of their own that reads the datasource views and nothing else', async () => {
    const reader = await open(main);
    const role = (await reader.pool.query<{ role: string }>('SELECT current_user AS role')).rows[0]!.role;
    expect(role).toMatch(/^gateway_reader_[0-9a-f]{16}$/);
    expect(reader.description).toBe(`role ${role} (reads schema datasources only)`);
    expect(await attempt(reader.pool, 'SELECT one FROM datasources.reader_probe')).toEqual([{ one: 1 }]);
    expect(await attempt(reader.pool, 'SELECT count(*) FROM public.query_templates')).toMatch(/permission denied for table query_templates/);
    expect(await attempt(reader.pool, 'SELECT count(*) FROM public.query_reader_credentials')).toMatch(/permission denied/);
    expect(await attempt(reader.pool, "SELECT pg_read_file('/etc/hostname')")).toMatch(/permission denied/);
    expect(await attempt(reader.pool, "SELECT set_config('role', 'postgres', false)")).toMatch(/permission denied to set role/);
    // A view made after the role (a dataset going Live later) is readable too.
    await main.query('CREATE VIEW datasources.reader_later AS SELECT 2 AS two');
    expect(await attempt(reader.pool, 'SELECT two FROM datasources.reader_later')).toEqual([{ two: 2 }]);
  });

  it('gives a second gateway on the same database the same role, which both can still use', async () => {
    const first = await open(main);
    const second = await open(main);
    expect(second.description).toBe(first.description);
    expect(await attempt(first.pool, 'SELECT one FROM datasources.reader_probe')).toEqual([{ one: 1 }]);
    expect(await attempt(second.pool, 'SELECT one FROM datasources.reader_probe')).toEqual([{ one: 1 }]);
    expect((await main.query('SELECT count(*)::int AS n FROM query_reader_credentials')).rows).toEqual([{ n: 1 }]);
  });
});

describe('with QUERY_READER_HIDE_CATALOGS (the default on the embedded PostgreSQL)', () => {
  it('hides who else uses the server, what they run, which tables exist and which PostgreSQL it is, and takes no session locks', async () => {
    const own = await createTestDatabase();
    const superuser = new pg.Pool({ connectionString: own.url, max: 2 });
    try {
      const reader = await openQueryReader(superuser, { url: own.url, hideCatalogs: true, createPool }, logger);
      opened.push(reader);
      expect(reader.description).toMatch(/^role gateway_reader_[0-9a-f]{16} \(reads schema datasources only; no catalogs of roles, sessions or tables\)$/);
      for (const probe of ['SELECT rolname FROM pg_roles', 'SELECT query FROM pg_stat_activity', 'SELECT relname FROM pg_class', 'SELECT tablename FROM pg_tables', 'SELECT name FROM pg_settings']) {
        expect(await attempt(reader.pool, probe)).toMatch(/permission denied for (view|table)/);
      }
      expect(await attempt(reader.pool, 'SELECT version()')).toMatch(/permission denied for function version/);
      expect(await attempt(reader.pool, 'SELECT pg_advisory_lock(42)')).toMatch(/permission denied for function pg_advisory_lock/);
      // The gateway's own user keeps them.
      expect(await attempt(superuser, 'SELECT count(*) > 0 AS seen FROM pg_roles')).toEqual([{ seen: true }]);
    } finally {
      await superuser.end();
      await own.drop();
    }
  });
});

describe('with a database user that may not create roles', () => {
  const limited = `limited_${randomUUID().slice(0, 8)}`;
  beforeAll(async () => {
    await main.query(`CREATE ROLE ${quoteIdentifier(limited)} LOGIN PASSWORD 'limited' NOCREATEROLE`);
    await main.query(`GRANT ALL ON SCHEMA public, datasources TO ${quoteIdentifier(limited)}`);
    await main.query(`GRANT ALL ON ALL TABLES IN SCHEMA public, datasources TO ${quoteIdentifier(limited)}`);
  });
  afterAll(async () => {
    await main.query(`DROP OWNED BY ${quoteIdentifier(limited)}`).catch(() => undefined);
    await main.query(`DROP ROLE IF EXISTS ${quoteIdentifier(limited)}`).catch(() => undefined);
  });

  it('keeps working with the gateway user and warns, naming QUERY_DATABASE_URL', async () => {
    const url = new URL(database.url);
    url.username = limited;
    url.password = 'limited';
    const limitedPool = createPool(url.toString());
    const reader = await open(limitedPool);
    expect(reader.pool).toBe(limitedPool);
    expect(reader.description).toBe("the gateway's own database user (not confined)");
    expect(logs.lines.some((line) => line.level === 40 && /template queries run as the gateway's own database user: it may not create roles.*QUERY_DATABASE_URL/.test(line.msg))).toBe(true);
  });

  it('keeps working and warns when it may create roles but not set this one up (it does not own the role or schema datasources)', async () => {
    const creator = `creator_${randomUUID().slice(0, 8)}`;
    await main.query(`CREATE ROLE ${quoteIdentifier(creator)} LOGIN PASSWORD 'creator' CREATEROLE`);
    await main.query(`GRANT ALL ON ALL TABLES IN SCHEMA public TO ${quoteIdentifier(creator)}`);
    try {
      const url = new URL(database.url);
      url.username = creator;
      url.password = 'creator';
      const creatorPool = createPool(url.toString());
      const reader = await open(creatorPool);
      expect(reader.pool).toBe(creatorPool);
      expect(reader.description).toBe("the gateway's own database user (not confined)");
      // Which right it lacks first depends on whether the role exists already (made by the tests
      // above: then altering it is refused) or not (then granting it the schema is).
      expect(logs.lines.some((line) => line.level === 40 && /could not be prepared \(permission denied (to alter role|for schema datasources)\)/.test(line.msg))).toBe(true);
    } finally {
      await main.query(`DROP OWNED BY ${quoteIdentifier(creator)}`).catch(() => undefined);
      await main.query(`DROP ROLE IF EXISTS ${quoteIdentifier(creator)}`).catch(() => undefined);
    }
  });

  it('uses the role QUERY_DATABASE_URL names instead, and refuses to start when it cannot log in', async () => {
    const url = new URL(database.url);
    url.username = limited;
    url.password = 'limited';
    const reader = await open(main, url.toString());
    expect(reader.description).toBe(`role ${limited} (QUERY_DATABASE_URL)`);
    url.password = 'wrong';
    await expect(open(main, url.toString())).rejects.toThrow(/QUERY_DATABASE_URL: cannot log in: password authentication failed/);
  });
});
