// The metadata database: an external PostgreSQL, or the embedded one the gateway starts itself.
import { z } from 'zod';
import type { ServerVariables } from './server.js';
import { booleanText, port, SECRET } from './values.js';

export const databaseVariables = z.object({
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// connection string')
    .optional()
    .describe('PostgreSQL to use. When unset, the gateway starts its own embedded PostgreSQL.')
    .meta(SECRET),
  QUERY_DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// connection string')
    .optional()
    .describe(
      'Role template queries run as, on the same database: give it SELECT on schema datasources only. When unset, the gateway makes such a role if its user may create roles (the embedded PostgreSQL: always).',
    )
    .meta(SECRET),
  QUERY_READER_HIDE_CATALOGS: booleanText
    .optional()
    .describe(
      "Take from PUBLIC, in the gateway's database, reads of PostgreSQL's catalogs of roles, sessions, tables and settings, version() and session advisory locks, so template queries cannot see them (needs a superuser; other roles of that database lose them too). Default: on with the embedded PostgreSQL, off otherwise.",
    ),
  EMBEDDED_PG_PORT: port.default(54329).describe('Port of the embedded PostgreSQL (127.0.0.1 only; 0 picks a free one between 20000 and 31999).'),
  DB_POOL_MAX: z.coerce.number().int().min(1).max(500).default(10).describe('Connections in the database pool.'),
  DB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).default(15_000).describe('Longest a single SQL statement may run.'),
});

export type DatabaseVariables = z.infer<typeof databaseVariables>;

export function databaseSettings(e: DatabaseVariables & Pick<ServerVariables, 'DATA_DIR'>) {
  const pool = { poolMax: e.DB_POOL_MAX, statementTimeoutMs: e.DB_STATEMENT_TIMEOUT_MS, ...(e.QUERY_DATABASE_URL ? { queryUrl: e.QUERY_DATABASE_URL } : {}) };
  return e.DATABASE_URL
    ? { mode: 'external' as const, url: e.DATABASE_URL, ...pool, hideCatalogs: e.QUERY_READER_HIDE_CATALOGS ?? false }
    : { mode: 'embedded' as const, dataDir: `${e.DATA_DIR}/postgres`, port: e.EMBEDDED_PG_PORT, ...pool, hideCatalogs: e.QUERY_READER_HIDE_CATALOGS ?? true };
}
