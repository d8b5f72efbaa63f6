// The migration runner: applies prisma/migrations once, records them as Prisma does, refuses an
// edited migration, and is safe when several gateways start at the same time.
import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { quoteIdentifier } from '../../src/platform/database/embedded.js';
import { applyMigrations, readMigrations } from '../../src/platform/database/migrate.js';
import { databaseUrlFor } from '../support/gateway.js';

const adminUrl = () => process.env.TEST_PG_ADMIN_URL!;
const created: string[] = [];

/** A database with nothing in it (not cloned from the migrated template). */
async function emptyDatabase(): Promise<pg.Pool> {
  const name = `empty_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${quoteIdentifier(name)} TEMPLATE template0`);
  await admin.end();
  created.push(name);
  return new pg.Pool({ connectionString: databaseUrlFor(name), max: 4 });
}

/** A database migrated up to (not including) migration `name`, and the rest to apply after: the data a migration meets. */
async function migratedUpTo(name: string): Promise<{ pool: pg.Pool; rest: () => Promise<unknown> }> {
  const pool = await emptyDatabase();
  pools.push(pool);
  const migrations = await readMigrations();
  const upTo = migrations.findIndex((m) => m.name === name);
  expect(upTo).toBeGreaterThan(0);
  await applyMigrations(pool, migrations.slice(0, upTo));
  return { pool, rest: () => applyMigrations(pool, migrations) };
}

let pools: pg.Pool[] = [];
beforeAll(() => {
  pools = [];
});
afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.end()));
  const admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  for (const name of created) await admin.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(name)} WITH (FORCE)`);
  await admin.end();
});

describe('the packing of metric chunks (20261127200000)', () => {
  it('turns chunks written as arrays into packed doubles the store reads back sample for sample', async () => {
    const { pool, rest } = await migratedUpTo('20261127200000_metric_chunks_packed');
    const hour = 1_795_600_800_000;
    await pool.query(`INSERT INTO metric_series (id, name, labels, signature, last_sample_ms) VALUES (1, 'm', '{"__name__": "m", "job": "j"}', 'm{job=j}', $1)`, [hour + 30_000]);
    await pool.query('INSERT INTO metric_chunks (series_id, start_ms, end_ms, times, values) VALUES (1, $1, $2, $3, $4)', [
      hour,
      hour + 30_000,
      [hour, hour + 15_000, hour + 30_000],
      [1.5, -2, 1e300],
    ]);
    await rest();
    const { MetricsStore } = await import('../../src/platform/metrics-store/store.js');
    const [series] = await new MetricsStore(pool).select([{ label: '__name__', op: '=', value: 'm' }], hour, hour + 60_000);
    expect({ labels: series!.labels, times: Array.from(series!.times), values: Array.from(series!.values) }).toEqual({
      labels: { __name__: 'm', job: 'j' },
      times: [hour, hour + 15_000, hour + 30_000],
      values: [1.5, -2, 1e300],
    });
    expect((await pool.query('SELECT samples FROM metric_chunks')).rows).toEqual([{ samples: 3 }]);
  });
});

describe('evenly spaced chunks without their times (20261130000000)', () => {
  it('drops the times of chunks compacted before whose spacing gives them, and the store reads them back the same', async () => {
    const { pool, rest } = await migratedUpTo('20261130000000_metric_chunks_even_times');
    const hour = 1_795_600_800_000;
    // As the store packs them (float8send): 8 big-endian bytes each.
    const pack = (numbers: number[]) => {
      const packed = Buffer.alloc(numbers.length * 8);
      numbers.forEach((n, i) => packed.writeDoubleBE(n, i * 8));
      return packed;
    };
    await pool.query(`INSERT INTO metric_series (id, name, labels, signature, last_sample_ms) VALUES (1, 'm', '{"__name__": "m"}', 'm', $1)`, [hour + 60_000]);
    // One evenly spaced chunk, one not: only the first loses its times.
    await pool.query('INSERT INTO metric_chunks (series_id, start_ms, end_ms, samples, step_ms, times, values) VALUES (1, $1, $2, 3, 15000, $3, $4), (1, $5, $6, 2, NULL, $7, $8)', [
      hour,
      hour + 30_000,
      pack([hour, hour + 15_000, hour + 30_000]),
      pack([1, 2, 3]),
      hour + 40_000,
      hour + 60_000,
      pack([hour + 40_000, hour + 60_000]),
      pack([4, 5]),
    ]);
    await rest();
    const stored = await pool.query('SELECT step_ms, octet_length(times) AS times_bytes FROM metric_chunks ORDER BY start_ms');
    expect(stored.rows).toEqual([
      { step_ms: 15_000, times_bytes: null },
      { step_ms: null, times_bytes: 16 },
    ]);
    const { MetricsStore } = await import('../../src/platform/metrics-store/store.js');
    const [series] = await new MetricsStore(pool).select([{ label: '__name__', op: '=', value: 'm' }], hour, hour + 3_600_000);
    expect({ times: Array.from(series!.times), values: Array.from(series!.values) }).toEqual({
      times: [hour, hour + 15_000, hour + 30_000, hour + 40_000, hour + 60_000],
      values: [1, 2, 3, 4, 5],
    });
    // A chunk with neither its times nor a spacing could not be read back: refused.
    await expect(
      pool.query('INSERT INTO metric_chunks (series_id, start_ms, end_ms, samples, step_ms, times, values) VALUES (1, $1, $1, 1, NULL, NULL, $2)', [hour + 90_000, pack([6])]),
    ).rejects.toThrow(/metric_chunks_times_or_step/);
  });
});

describe('applyMigrations', () => {
  it('creates the tables on an empty database and records each migration with its sha256 checksum', async () => {
    const pool = await emptyDatabase();
    pools.push(pool);
    const migrations = await readMigrations();
    expect(await applyMigrations(pool)).toEqual(migrations.map((m) => m.name));

    const tables = await pool.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`);
    expect(tables.rows.map((row) => row.table_name)).toEqual(expect.arrayContaining(['query_templates', '_prisma_migrations']));
    const recorded = await pool.query('SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" ORDER BY migration_name');
    expect(recorded.rows.map((row) => [row.migration_name, row.checksum])).toEqual(migrations.map((m) => [m.name, createHash('sha256').update(m.sql).digest('hex')]));
    expect(recorded.rows.every((row) => row.finished_at instanceof Date)).toBe(true);
  });

  it('applies nothing the second time', async () => {
    const pool = await emptyDatabase();
    pools.push(pool);
    await applyMigrations(pool);
    expect(await applyMigrations(pool)).toEqual([]);
  });

  it('lets only one of several gateways starting together apply the migrations', async () => {
    const pool = await emptyDatabase();
    pools.push(pool);
    const results = await Promise.all([applyMigrations(pool), applyMigrations(pool), applyMigrations(pool)]);
    expect(results.filter((applied) => applied.length > 0)).toHaveLength(1);
    const recorded = await pool.query('SELECT count(*)::int AS n FROM "_prisma_migrations"');
    expect(recorded.rows[0].n).toBe((await readMigrations()).length);
  });

  it('refuses to start when an applied migration was edited afterwards', async () => {
    const pool = await emptyDatabase();
    pools.push(pool);
    const migrations = await readMigrations();
    await applyMigrations(pool, migrations);
    const edited = migrations.map((m, i) => (i === 0 ? { ...m, checksum: 'f'.repeat(64) } : m));
    await expect(applyMigrations(pool, edited)).rejects.toThrow(`migration ${migrations[0]!.name} was changed after it was applied`);
  });

  it('rolls back a failing migration completely and names it', async () => {
    const pool = await emptyDatabase();
    pools.push(pool);
    const broken = [{ name: '20990101000000_broken', sql: 'CREATE TABLE half_done (id int); SELECT * FROM no_such_table;', checksum: 'x' }];
    await expect(applyMigrations(pool, broken)).rejects.toThrow(/migration 20990101000000_broken failed: .*no_such_table/);
    const leftover = await pool.query(`SELECT to_regclass('public.half_done') AS t`);
    expect(leftover.rows[0].t).toBeNull();
    const recorded = await pool.query('SELECT count(*)::int AS n FROM "_prisma_migrations"');
    expect(recorded.rows[0].n).toBe(0);
  });
});
