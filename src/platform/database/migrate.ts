// Applies prisma/migrations/*/migration.sql in name order, each in its own transaction, and records
// them in Prisma's own `_prisma_migrations` table (same columns and checksums), so `prisma migrate
// status` agrees with us. We run them ourselves because Prisma 6's JS schema engine cannot run
// `migrate deploy` against PostgreSQL (prisma/orm#27403) and the binary engine needs a download.
import { createHash, randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';
import { projectPath } from '../../paths.js';

export const MIGRATIONS_DIR = projectPath('prisma', 'migrations') + path.sep;

// Any constant works; it only has to be the same for every gateway sharing a database.
const MIGRATION_LOCK_KEY = 727_274_001;

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export async function readMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const names = entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(path.join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    }),
  );
}

const MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0)`;

/**
 * Applies pending migrations; returns the names applied. Safe to run from several gateways at once:
 * all of it is one transaction under a transaction-level lock (copies starting together wait, then
 * find nothing to do), never a session lock, so it also runs through a pooler in transaction mode
 * (PgBouncer), where a session lock and its release may reach two different server connections.
 * Each migration is a savepoint: one that fails is undone whole, those before it stay applied.
 */
export async function applyMigrations(pool: pg.Pool, migrations?: Migration[]): Promise<string[]> {
  const all = migrations ?? (await readMigrations());
  const client = await pool.connect();
  const ran: string[] = [];
  let failure: Error | undefined;
  try {
    await client.query('BEGIN');
    try {
      await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
      await client.query(MIGRATIONS_TABLE);
      const done = await client.query<{ migration_name: string; checksum: string }>(
        'SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
      );
      const applied = new Map(done.rows.map((row) => [row.migration_name, row.checksum]));
      for (const migration of all) {
        const checksum = applied.get(migration.name);
        if (checksum !== undefined) {
          if (checksum !== migration.checksum) throw new Error(`migration ${migration.name} was changed after it was applied; add a new migration instead`);
          continue;
        }
        await client.query('SAVEPOINT migration');
        try {
          await client.query(migration.sql);
          await client.query(
            `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, finished_at, applied_steps_count)
             VALUES ($1, $2, $3, now(), 1)`,
            [randomUUID(), migration.checksum, migration.name],
          );
          await client.query('RELEASE SAVEPOINT migration');
        } catch (error) {
          await client.query('ROLLBACK TO SAVEPOINT migration');
          failure = new Error(`migration ${migration.name} failed: ${(error as Error).message}`, { cause: error });
          break;
        }
        ran.push(migration.name);
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  } finally {
    client.release();
  }
  if (failure) throw failure;
  return ran;
}
