// Template queries run as a login role of their own, which may read the datasource views (schema
// `datasources`) and nothing else: not the gateway's tables (sessions, API keys, audit records, the
// raw events of every dataset), not server files (pg_read_file needs rights it lacks), and it cannot
// become another role (SET ROLE is checked against the session's login role, this one). A read-only
// transaction alone stops writes, not reads; and `SET LOCAL ROLE` on the gateway's own connection
// would be undone by `set_config('role', ...)` inside the template.
//
// The gateway makes the role when its database user may create roles (the embedded PostgreSQL's
// may): one per database, `gateway_reader_<hash of the database name>`, with a random password kept
// in table query_reader_credentials so every gateway on the database logs in with the same one.
// QUERY_DATABASE_URL names a role the operator made instead. Without either, templates run as the
// gateway's own user, and the start-up log says so.
import { createHash, randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { Logger } from '../../logger.js';
import { quoteIdentifier } from './embedded.js';
import { withTransaction } from './transaction.js';

export interface QueryReader {
  pool: pg.Pool;
  /** Whom template queries run as, for the start-up log. */
  description: string;
  close(): Promise<void>;
}

export interface QueryReaderOptions {
  /** The gateway's own connection string (the reader logs in to the same server and database). */
  url: string;
  /** QUERY_DATABASE_URL: a role the operator made; used as it is. */
  explicitUrl?: string;
  /** QUERY_READER_HIDE_CATALOGS: take the catalog reads and functions below from PUBLIC. */
  hideCatalogs?: boolean;
  createPool(url: string): pg.Pool;
}

const SCHEMA = 'datasources';

// What PostgreSQL lets every role (PUBLIC) read or call and a template has no use for: the names of
// roles, sessions and their queries, every table and function name, the server's version and
// settings, and session-level advisory locks (which would stay held on a pooled connection). The
// reader's own views need none of them (the planner reads the catalogs without these rights).
const CATALOG_RELATIONS_TEMPLATES_NEED_NOT_READ = [
  'pg_roles',
  'pg_user',
  'pg_group',
  'pg_stat_activity',
  'pg_stat_ssl',
  'pg_stat_gssapi',
  'pg_locks',
  'pg_settings',
  'pg_database',
  'pg_namespace',
  'pg_class',
  'pg_attribute',
  'pg_proc',
  'pg_description',
  'pg_shdescription',
  'pg_tables',
  'pg_views',
  'pg_matviews',
  'pg_indexes',
  'pg_sequences',
  'pg_stat_all_tables',
  'pg_stat_user_tables',
  'pg_statio_all_tables',
  'pg_stat_database',
  'pg_prepared_statements',
  'pg_prepared_xacts',
  'pg_available_extensions',
];
const FUNCTIONS_TEMPLATES_NEED_NOT_CALL = [
  'version()',
  'inet_server_addr()',
  'inet_server_port()',
  'inet_client_addr()',
  'pg_postmaster_start_time()',
  'pg_conf_load_time()',
  'pg_advisory_lock(bigint)',
  'pg_advisory_lock(integer, integer)',
  'pg_advisory_lock_shared(bigint)',
  'pg_advisory_lock_shared(integer, integer)',
  'pg_try_advisory_lock(bigint)',
  'pg_try_advisory_lock(integer, integer)',
  'pg_try_advisory_lock_shared(bigint)',
  'pg_try_advisory_lock_shared(integer, integer)',
];
// Several gateways starting together on one database make the role once.
const LOCK_KEY = 0x51_52_44_52; // "QRDR"

export async function openQueryReader(main: pg.Pool, options: QueryReaderOptions, logger: Logger): Promise<QueryReader> {
  if (options.explicitUrl) {
    const pool = options.createPool(options.explicitUrl);
    const role = await whoAmI(pool).catch(async (error: unknown) => {
      await pool.end().catch(() => undefined);
      throw new Error(`QUERY_DATABASE_URL: cannot log in: ${(error as Error).message}`, { cause: error });
    });
    return { pool, description: `role ${role} (QUERY_DATABASE_URL)`, close: () => pool.end() };
  }

  const unconfined = (why: string): QueryReader => {
    logger.warn(`template queries run as the gateway's own database user: ${why}. Set QUERY_DATABASE_URL to a role that may read schema ${SCHEMA} only (docs/queries.md "Running templates safely").`);
    return { pool: main, description: "the gateway's own database user (not confined)", close: async () => undefined };
  };

  const { rows } = await main.query<{ database: string; may_create_roles: boolean }>(
    'SELECT current_database() AS database, (rolsuper OR rolcreaterole) AS may_create_roles FROM pg_roles WHERE rolname = current_user',
  );
  const { database, may_create_roles: mayCreateRoles } = rows[0]!;
  if (!mayCreateRoles) return unconfined('it may not create roles');

  const role = `gateway_reader_${createHash('sha256').update(database).digest('hex').slice(0, 16)}`;
  let password: string;
  try {
    password = await prepareRole(main, database, role);
  } catch (error) {
    return unconfined(`role ${role} could not be prepared (${(error as Error).message})`);
  }
  const url = new URL(options.url);
  url.username = role;
  url.password = password;
  const pool = options.createPool(url.toString());
  try {
    await whoAmI(pool);
  } catch (error) {
    await pool.end().catch(() => undefined);
    return unconfined(`role ${role} cannot log in (${(error as Error).message}; is it allowed in pg_hba.conf?)`);
  }
  const catalogs = !options.hideCatalogs
    ? ''
    : await restrictPublicCatalogs(main).then(
        () => '; no catalogs of roles, sessions or tables',
        (error: unknown) => {
          logger.warn(`QUERY_READER_HIDE_CATALOGS: template queries can still read PostgreSQL's catalogs (role and table names, sessions, version): ${(error as Error).message}.`);
          return '';
        },
      );
  return { pool, description: `role ${role} (reads schema ${SCHEMA} only${catalogs})`, close: () => pool.end() };
}

/**
 * Takes from PUBLIC, in this database, the catalog reads and functions listed above. Only a
 * superuser may (the catalogs belong to one); the gateway's own user, a superuser then, keeps them.
 */
async function restrictPublicCatalogs(main: pg.Pool): Promise<void> {
  const { rows } = await main.query<{ superuser: boolean }>('SELECT rolsuper AS superuser FROM pg_roles WHERE rolname = current_user');
  if (!rows[0]?.superuser) throw new Error("the gateway's database user is not a superuser");
  await withTransaction(main, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [LOCK_KEY]);
    await client.query(`REVOKE SELECT ON ${CATALOG_RELATIONS_TEMPLATES_NEED_NOT_READ.map((name) => `pg_catalog.${name}`).join(', ')} FROM PUBLIC`);
    await client.query(`REVOKE EXECUTE ON FUNCTION ${FUNCTIONS_TEMPLATES_NEED_NOT_CALL.map((name) => `pg_catalog.${name}`).join(', ')} FROM PUBLIC`);
  });
}

async function whoAmI(pool: pg.Pool): Promise<string> {
  const { rows } = await pool.query<{ role: string }>('SELECT current_user AS role');
  return rows[0]!.role;
}

/** Makes (or repairs) the role with its rights and returns its password. */
async function prepareRole(main: pg.Pool, database: string, role: string): Promise<string> {
  const password = await withTransaction(main, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [LOCK_KEY]);
    // Hex only, so it is safe to write into the statement (role DDL takes no parameters).
    await client.query('INSERT INTO query_reader_credentials (role_name, password) VALUES ($1, $2) ON CONFLICT (role_name) DO NOTHING', [role, randomBytes(24).toString('hex')]);
    const stored = await client.query<{ password: string }>('SELECT password FROM query_reader_credentials WHERE role_name = $1', [role]);
    const secret = stored.rows[0]!.password;
    if (!/^[0-9a-f]+$/.test(secret)) throw new Error(`query_reader_credentials holds a password for ${role} that is not hex`);
    const exists = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role]);
    const attributes = `LOGIN PASSWORD '${secret}' NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT NOREPLICATION NOBYPASSRLS`;
    await client.query(exists.rowCount ? `ALTER ROLE ${quoteIdentifier(role)} WITH ${attributes}` : `CREATE ROLE ${quoteIdentifier(role)} WITH ${attributes}`);
    await client.query(`GRANT USAGE ON SCHEMA ${SCHEMA} TO ${quoteIdentifier(role)}`);
    await client.query(`GRANT SELECT ON ALL TABLES IN SCHEMA ${SCHEMA} TO ${quoteIdentifier(role)}`);
    // Views made later (a dataset going Live) are readable too: the gateway's user makes them.
    await client.query(`ALTER DEFAULT PRIVILEGES IN SCHEMA ${SCHEMA} GRANT SELECT ON TABLES TO ${quoteIdentifier(role)}`);
    return secret;
  });
  // PUBLIC may connect by default; granting it too needs the database's owner, which the gateway's
  // user need not be. If neither holds, the login check after this says so.
  await main.query(`GRANT CONNECT ON DATABASE ${quoteIdentifier(database)} TO ${quoteIdentifier(role)}`).catch(() => undefined);
  return password;
}
