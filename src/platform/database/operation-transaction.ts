// One transaction per operation: every Prisma statement a mutation sends (whichever store sends it)
// goes into one transaction, begun at its first statement, and the audit record is written in the
// message that commits it. So a change never lands without its audit record, nor the record
// without the change, and the operation commits once instead of once per statement.
//
// Prisma reaches the database through a pool that routes by the async context (`routedPool`):
// inside `run`, its statements go to the operation's connection, and a `$transaction` of a store
// becomes a savepoint of the operation's transaction. Plain-SQL clients of the pool (the query
// engine, the event store, jobs) stay outside it: their statements are their own.
import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';

type QueryArgs = Parameters<pg.PoolClient['query']>;

/** A statement without parameters, made of literals quoted by `literal` (sent in one message with COMMIT or after ROLLBACK). */
export type LastStatement = (literal: (value: string | null) => string) => string;

const literal = (value: string | null): string => (value === null ? 'NULL' : pg.escapeLiteral(value));

/**
 * What of pg's client this file reaches past its types for: pipeline mode (a statement goes out
 * without waiting for the one before; their answers come back in order) and the client's socket.
 */
interface PipelineClient {
  pipeline: boolean;
  connection: { stream: { cork(): void; uncork(): void } };
}
const pipelineOf = (client: pg.PoolClient) => client as unknown as PipelineClient;

/** A statement on `client` (async: one pg refuses by throwing becomes a rejection like any other). */
async function send(client: pg.PoolClient, args: QueryArgs): Promise<unknown> {
  return (client.query as (...a: unknown[]) => Promise<unknown>).apply(client, args);
}

class OperationTransaction {
  private opening: Promise<pg.PoolClient> | undefined;
  private beginning: Promise<unknown> | undefined;
  private savepoints = 0;
  private readonly committed: (() => void)[] = [];

  constructor(private readonly pool: pg.Pool) {}

  /**
   * Set once the operation ended: work it left running (a promise nobody awaited) inherits its async
   * context, and its statements must then go to the pool, never to a connection given back.
   */
  ended = false;

  /** True once a statement was sent: what the operation reads from then on may be its own uncommitted writes. */
  get begun(): boolean {
    return this.opening !== undefined && !this.ended;
  }

  client(): Promise<pg.PoolClient> {
    if (!this.opening) void this.open().catch(() => undefined);
    return this.opening!;
  }

  /**
   * Sends a statement of the operation. The first goes out in the same write as its BEGIN (the
   * connection in pipeline mode, its socket corked around both): a round trip and a socket write
   * fewer per mutation (on this VM a loopback write is ~0.2 ms of CPU, bench/writes.ts).
   */
  query(args: QueryArgs): Promise<unknown> {
    // The others after BEGIN's answer (long there by then): none goes out of a transaction that never began.
    if (!this.opening) return this.open(args);
    return this.opening.then(async (client) => {
      await this.beginning;
      return send(client, args);
    });
  }

  /** Takes the operation's connection and begins its transaction, with `first` right behind BEGIN. */
  private open(first?: QueryArgs): Promise<unknown> {
    let sent: Promise<unknown> | undefined;
    this.opening = this.pool.connect().then((client) => {
      const pipelined = pipelineOf(client);
      pipelined.pipeline = true;
      pipelined.connection.stream.cork();
      try {
        this.beginning = client.query('BEGIN');
        if (first) sent = send(client, first);
      } finally {
        pipelined.connection.stream.uncork();
      }
      // A failed BEGIN fails the first statement's answer, every later statement and the commit.
      this.beginning.catch(() => undefined);
      return client;
    });
    // Both answers awaited at once, so neither's failure goes unobserved; BEGIN's counts first.
    return this.opening.then(async (client) => (await Promise.all([this.beginning, sent ?? client]))[1]);
  }

  /** The connection back to the pool, out of pipeline mode; with `error`, closed instead. */
  private static release(client: pg.PoolClient, error?: Error): void {
    pipelineOf(client).pipeline = false;
    client.release(error);
  }

  /** A client for a store's own `$transaction` inside the operation: a savepoint of it, released by its COMMIT. */
  async nested(): Promise<Pick<pg.PoolClient, 'query' | 'on' | 'removeListener' | 'release'>> {
    const client = await this.client();
    const name = `nested_${++this.savepoints}`;
    const asSavepoint: Record<string, string> = { BEGIN: `SAVEPOINT ${name}`, COMMIT: `RELEASE SAVEPOINT ${name}`, ROLLBACK: `ROLLBACK TO SAVEPOINT ${name}` };
    const wrapper = {
      query: (...args: QueryArgs) => {
        const [config, ...rest] = args as unknown[];
        const text = typeof config === 'string' ? config : (config as { text: string }).text;
        const mapped = asSavepoint[text.trim().toUpperCase()];
        if (mapped === undefined) return (client.query as (...a: unknown[]) => unknown)(config, ...rest);
        return (client.query as (...a: unknown[]) => unknown)(typeof config === 'string' ? mapped : { ...(config as object), text: mapped }, ...rest);
      },
      on: () => wrapper,
      removeListener: () => wrapper,
      release: () => undefined,
    };
    return wrapper as unknown as Pick<pg.PoolClient, 'query' | 'on' | 'removeListener' | 'release'>;
  }

  /** Runs `then` once the operation's transaction has committed (at once outside one). */
  afterCommit(then: () => void): void {
    this.committed.push(then);
  }

  /** Commits with `last` in the same message; when either fails, nothing of the operation lands. */
  async commit(last: LastStatement): Promise<void> {
    if (!this.opening) return;
    const client = await this.opening;
    try {
      await this.beginning;
      await client.query(`${last(literal)}; COMMIT`);
    } catch (error) {
      // A connection that could not roll back is not given back to the pool for the next operation.
      const rolledBack = await client.query('ROLLBACK').then(
        () => true,
        () => false,
      );
      OperationTransaction.release(client, rolledBack ? undefined : (error as Error));
      throw error;
    }
    OperationTransaction.release(client);
    for (const then of this.committed.splice(0)) then();
  }

  /** Rolls back, then sends `last` in the same message, committed on its own. */
  async rollback(last: LastStatement): Promise<void> {
    if (!this.opening) return;
    const client = await this.opening.catch(() => undefined);
    // It never began (no connection, or BEGIN failed): nothing to roll back, the statement goes alone.
    if (!client) return void (await this.pool.query(last(literal)));
    try {
      await client.query(`ROLLBACK; ${last(literal)}`);
    } catch (error) {
      // Its transaction may still be open: the connection is closed, not given back to the pool.
      OperationTransaction.release(client, error as Error);
      throw error;
    }
    OperationTransaction.release(client);
  }
}

const current = new AsyncLocalStorage<OperationTransaction>();

/** The operation transaction of this async context, if one has begun (its reads may see its own uncommitted writes). */
export function insideBegunTransaction(): boolean {
  return current.getStore()?.begun ?? false;
}

/** Runs `then` after the current operation's transaction commits; at once outside one (a rolled-back one never runs it). */
export function afterOperationCommit(then: () => void): void {
  const transaction = current.getStore();
  if (transaction?.begun) transaction.afterCommit(then);
}

/** The statement an operation ends with: `success` is committed with its change, `failure` after its rollback. */
export interface OperationEnd<T> {
  success: (result: T) => LastStatement;
  failure: (error: unknown) => LastStatement;
  /** The failure's statement could not be written (the operation's own error is thrown all the same). */
  failureLost: (error: unknown) => void;
}

export type OperationTransactions = <T>(work: () => Promise<T>, end: OperationEnd<T>) => Promise<T>;

/**
 * Runs `work` with every Prisma statement it sends in one transaction, and ends it with the
 * statement `end` makes; when `work` sent no statement, that statement is sent alone.
 */
export function operationTransactions(pool: pg.Pool): OperationTransactions {
  return async (work, end) => {
    const transaction = new OperationTransaction(pool);
    let result;
    try {
      result = await current.run(transaction, work);
    } catch (error) {
      const last = end.failure(error);
      const begun = transaction.begun;
      transaction.ended = true;
      await (begun ? transaction.rollback(last) : pool.query(last(literal))).catch(end.failureLost);
      throw error;
    }
    const last = end.success(result);
    const begun = transaction.begun;
    transaction.ended = true;
    if (begun) await transaction.commit(last);
    else await pool.query(last(literal));
    return result;
  };
}

/**
 * The pool as Prisma's adapter sees it: outside an operation, the pool; inside one, its statements
 * go to the operation's transaction and its transactions become savepoints of it.
 */
export function routedPool(pool: pg.Pool): pg.Pool {
  return new Proxy(pool, {
    get(target, property, receiver) {
      if (property === 'query') {
        return (...args: QueryArgs) => {
          const transaction = current.getStore();
          if (!transaction || transaction.ended) return (target.query as (...a: unknown[]) => unknown).apply(target, args);
          return transaction.query(args);
        };
      }
      if (property === 'connect') {
        return (...args: unknown[]) => {
          const transaction = current.getStore();
          if (!transaction || transaction.ended) return (target.connect as (...a: unknown[]) => unknown).apply(target, args);
          return transaction.nested();
        };
      }
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
