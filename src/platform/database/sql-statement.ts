// Hand-written SQL for the hottest statements, where a benchmark shows Prisma is the cost.
import type pg from 'pg';

/**
 * A hot statement as plain parameterised SQL: no query compiler runs for it (Prisma compiles every
 * statement anew). Unnamed, so it also runs through PgBouncer in transaction mode, where a named
 * prepared statement may meet a server connection that never saw it. On the store pool
 * (Database.storePool) it runs in the operation's transaction, like Prisma's statements.
 */
export function sqlStatement<Row extends pg.QueryResultRow>(pool: pg.Pool, text: string): (values: unknown[]) => Promise<Row[]> {
  return async (values) => (await pool.query<Row>(text, values)).rows;
}
