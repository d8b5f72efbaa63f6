// Hand-written SQL for the hottest statements, where a benchmark shows Prisma is the cost.
import pg from 'pg';
import { databaseUnavailable, isDatabaseUnavailable } from './errors.js';

/**
 * Runs plain parameterised SQL on `pool`: no query compiler runs for it (Prisma compiles every
 * statement anew). Unnamed, so it also runs through PgBouncer in transaction mode, where a named
 * prepared statement may meet a server connection that never saw it. On the store pool
 * (Database.storePool) it runs in the operation's transaction, like Prisma's statements.
 */
export async function runSql<Row extends pg.QueryResultRow>(pool: pg.Pool, text: string, values: readonly unknown[], types?: pg.CustomTypesConfig): Promise<Row[]> {
  try {
    return (await pool.query<Row>({ text, values: values as unknown[], ...(types ? { types } : {}) })).rows;
  } catch (error) {
    // Answered as Prisma's statements are (its adapter wraps the same failures): 503, retry. The pool's
    // own connection errors come from Node's sockets, which a test runner's VM does not take for an Error.
    throw isDatabaseUnavailable(error) ? databaseUnavailable(error) : error;
  }
}

/** A hot statement of fixed text (runSql). */
export function sqlStatement<Row extends pg.QueryResultRow>(pool: pg.Pool, text: string): (values: unknown[]) => Promise<Row[]> {
  return (values) => runSql<Row>(pool, text, values);
}

const INT8 = 20;
const INT8_ARRAY = 1016;
const DATE = 1082;
type TypeId = Parameters<typeof pg.types.getTypeParser>[0];
const parseInt8Array = pg.types.getTypeParser(INT8_ARRAY as TypeId) as (text: string) => (string | null)[];

/**
 * Values as Prisma's raw queries return them, for SQL that replaces one: pg's own except int8 as a
 * BigInt (pg gives its text) and a date as UTC midnight (pg gives the process's local midnight).
 */
export const PRISMA_RAW_TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === INT8) return (text: string) => BigInt(text);
    if (oid === INT8_ARRAY) return (text: string) => parseInt8Array(text).map((item) => (item === null ? null : BigInt(item)));
    if (oid === DATE) return (text: string) => new Date(`${text}T00:00:00Z`);
    return pg.types.getTypeParser(oid, format ?? 'text') as unknown;
  }) as pg.CustomTypesConfig['getTypeParser'],
};
