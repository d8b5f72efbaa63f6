// Hand-written SQL for the hottest statements, where a benchmark shows Prisma is the cost.
import type pg from 'pg';
import { databaseUnavailable, isDatabaseUnavailable } from './errors.js';

/**
 * A hot statement as plain parameterised SQL: no query compiler runs for it (Prisma compiles every
 * statement anew). Unnamed, so it also runs through PgBouncer in transaction mode, where a named
 * prepared statement may meet a server connection that never saw it. On the store pool
 * (Database.storePool) it runs in the operation's transaction, like Prisma's statements.
 */
export function sqlStatement<Row extends pg.QueryResultRow>(pool: pg.Pool, text: string): (values: unknown[]) => Promise<Row[]> {
  return async (values) => {
    try {
      return (await pool.query<Row>(text, values)).rows;
    } catch (error) {
      // Answered as Prisma's statements are (its adapter wraps the same failures): 503, retry. The pool's
      // own connection errors come from Node's sockets, which a test runner's VM does not take for an Error.
      throw isDatabaseUnavailable(error) ? databaseUnavailable(error) : error;
    }
  };
}
