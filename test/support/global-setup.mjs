// Once per test run: one embedded PostgreSQL in a temporary folder, and a migrated template
// database that every test file clones (CREATE DATABASE ... TEMPLATE is a fast file copy).
// Plain ESM because jest loads global setup outside its transform; tsx imports our TypeScript.
import { chmod, mkdir, mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { tsImport } from 'tsx/esm/api';

const TEMPLATE_DATABASE = 'gateway_test_template';

export default async function globalSetup() {
  const { startEmbeddedPostgres } = await tsImport('../../src/platform/database/embedded.ts', import.meta.url);
  const { applyMigrations } = await tsImport('../../src/platform/database/migrate.ts', import.meta.url);
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'gateway-test-pg-'));
  // As root, PostgreSQL runs as the `postgres` user, which must be able to enter this folder.
  await chmod(dataDir, 0o755);
  const cluster = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'postgres'), port: 0, database: TEMPLATE_DATABASE });
  const pool = new pg.Pool({ connectionString: cluster.url, max: 1 });
  try {
    // This cluster lives for one run and goes with its folder: what it writes need not survive a
    // crash of the machine, so no commit (nor each file's CREATE DATABASE) waits for the disk. A
    // gateway process killed by a test leaves PostgreSQL running, so nothing a test checks changes.
    for (const setting of ['fsync', 'synchronous_commit', 'full_page_writes']) await pool.query(`ALTER SYSTEM SET ${setting} = off`);
    await pool.query('SELECT pg_reload_conf()');
    await applyMigrations(pool);
  } finally {
    await pool.end();
  }
  // Workers start after global setup and inherit these.
  process.env.TEST_PG_ADMIN_URL = cluster.adminUrl;
  // Each test gateway writes the REST failure codes it answered here; global teardown checks that
  // the API reference declares every one of them for its operation.
  process.env.TEST_OBSERVED_CODES_DIR = path.join(dataDir, 'observed-codes');
  process.env.TEST_PG_TEMPLATE = TEMPLATE_DATABASE;
  // The run's own folder (removed at teardown), e.g. for what test files do once per run.
  process.env.TEST_RUN_DIR = dataDir;
  await mkdir(process.env.TEST_OBSERVED_CODES_DIR, { recursive: true });
  globalThis.__TEST_PG__ = { cluster, dataDir };
}
