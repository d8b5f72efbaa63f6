// The ingestion counters in PostgreSQL (table ingestion_counters), shared by every gateway on the
// database: each ingest call adds its outcome with one UPSERT, so whichever copy answers
// ingestionStats reads the same numbers. Only this module (and src/server.ts) uses this file.
import type pg from 'pg';

export interface IngestionCounts {
  requests: number;
  received: number;
  processed: number;
  duplicates: number;
  failed: number;
  rejectedRequests: number;
}

/** What one ingest call adds to its dataset's counters. */
export type IngestionDelta = Partial<IngestionCounts>;

/** Ids that only ever had refused calls kept at most: callers can name any id, so the table is bounded. */
export const MAX_REFUSED_ONLY_IDS = 10_000;
/** Refused calls between two trims of the ids that were only ever refused. */
const TRIM_EVERY = 1_000;

export function zeroCounts(): IngestionCounts {
  return { requests: 0, received: 0, processed: 0, duplicates: 0, failed: 0, rejectedRequests: 0 };
}

interface CounterRow {
  dataset_id: string;
  requests: string;
  received: string;
  processed: string;
  duplicates: string;
  failed: string;
  rejected_requests: string;
}

function countsOf(row: Omit<CounterRow, 'dataset_id'>): IngestionCounts {
  return {
    requests: Number(row.requests),
    received: Number(row.received),
    processed: Number(row.processed),
    duplicates: Number(row.duplicates),
    failed: Number(row.failed),
    rejectedRequests: Number(row.rejected_requests),
  };
}

export interface IngestionCounterStoreOptions {
  maxRefusedOnly?: number;
  /** Where the counters are written (one statement at a time); `pool` by default. */
  writePool?: pg.Pool;
}

interface CounterRead {
  byId: Map<string, IngestionCounts>;
  /** Accepted calls over every dataset (read only when a caller asked for it). */
  allRequests: number;
}

/**
 * Reads of the counters asked for in the same turn of the event loop share one statement: a list
 * page asks for its datasets' counters (Dataset.ingestion) and for their accepted calls against every
 * dataset's (Dataset.health's failure rate) at once, from two DataLoaders of two modules.
 */
function counterReads(pool: pg.Pool) {
  let ids = new Set<string>();
  let withTotal = false;
  let next: Promise<CounterRead> | undefined;

  const read = async (wanted: string[], total: boolean): Promise<CounterRead> => {
    const result = await pool.query<Omit<CounterRow, 'dataset_id'> & { dataset_id: string | null }>(
      `SELECT dataset_id, requests, received, processed, duplicates, failed, rejected_requests FROM ingestion_counters WHERE dataset_id = ANY($1::text[])${
        total ? ' UNION ALL SELECT NULL, coalesce(sum(requests), 0), 0, 0, 0, 0, 0 FROM ingestion_counters' : ''
      }`,
      [wanted],
    );
    const byId = new Map<string, IngestionCounts>();
    let allRequests = 0;
    for (const row of result.rows) {
      if (row.dataset_id === null) allRequests = Number(row.requests);
      else byId.set(row.dataset_id, countsOf(row));
    }
    return { byId, allRequests };
  };

  return {
    request(datasetIds: readonly string[], total: boolean): Promise<CounterRead> {
      for (const id of datasetIds) ids.add(id);
      withTotal ||= total;
      next ??= new Promise<CounterRead>((resolve, reject) => {
        setImmediate(() => {
          const [wanted, wantTotal] = [[...ids], withTotal];
          ids = new Set();
          withTotal = false;
          next = undefined;
          read(wanted, wantTotal).then(resolve, reject);
        });
      });
      return next;
    },
  };
}

export function createIngestionCounterStore(pool: pg.Pool, options: IngestionCounterStoreOptions = {}) {
  const writePool = options.writePool ?? pool;
  const maxRefusedOnly = options.maxRefusedOnly ?? MAX_REFUSED_ONLY_IDS;
  let refusedSinceTrim = 0;

  /** Deltas waiting for the next write, summed per dataset, and the calls waiting for that write. */
  type Waiter = { resolve: () => void; reject: (error: unknown) => void };
  let pending = new Map<string, IngestionCounts>();
  let waiting: Waiter[] = [];
  let writing: Promise<void> | undefined;

  const writePending = async (): Promise<void> => {
    const [batch, waiters] = [pending, waiting];
    pending = new Map<string, IngestionCounts>();
    waiting = [];
    const ids = [...batch.keys()].sort();
    const column = (name: keyof IngestionCounts) => ids.map((id) => batch.get(id)![name]);
    try {
      await writePool.query(
        `INSERT INTO ingestion_counters AS c (dataset_id, requests, received, processed, duplicates, failed, rejected_requests)
         SELECT * FROM unnest($1::text[], $2::int8[], $3::int8[], $4::int8[], $5::int8[], $6::int8[], $7::int8[])
         ON CONFLICT (dataset_id) DO UPDATE SET
           requests = c.requests + EXCLUDED.requests, received = c.received + EXCLUDED.received,
           processed = c.processed + EXCLUDED.processed, duplicates = c.duplicates + EXCLUDED.duplicates,
           failed = c.failed + EXCLUDED.failed, rejected_requests = c.rejected_requests + EXCLUDED.rejected_requests,
           updated_at = now()`,
        [ids, column('requests'), column('received'), column('processed'), column('duplicates'), column('failed'), column('rejectedRequests')],
      );
      for (const waiter of waiters) waiter.resolve();
    } catch (error) {
      for (const waiter of waiters) waiter.reject(error);
    }
  };

  /** Writes what is pending, then whatever arrived meanwhile, until nothing is left: one statement at a time. */
  const drain = async (): Promise<void> => {
    while (pending.size > 0) await writePending();
    writing = undefined;
  };

  const reads = counterReads(pool);

  return {
    /**
     * Adds one call's outcome; resolves once it is written. Calls that arrive while a write is under
     * way go together in the next one (one statement for many concurrent calls, in dataset order so
     * two gateways' writes never wait on each other's rows in a cycle).
     */
    async add(datasetId: string, delta: IngestionDelta): Promise<void> {
      const sum = pending.get(datasetId) ?? zeroCounts();
      for (const key of Object.keys(sum) as (keyof IngestionCounts)[]) sum[key] += delta[key] ?? 0;
      pending.set(datasetId, sum);
      const written = new Promise<void>((resolve, reject) => waiting.push({ resolve, reject }));
      writing ??= drain();
      await written;
      if (!delta.requests && (refusedSinceTrim += 1) >= TRIM_EVERY) {
        refusedSinceTrim = 0;
        await this.trimRefusedOnly();
      }
    },

    /** Drops the ids that only ever had refused calls (guessed or mistyped ids) beyond the newest `maxRefusedOnly`. */
    async trimRefusedOnly(): Promise<number> {
      const result = await pool.query(
        `DELETE FROM ingestion_counters WHERE dataset_id IN (
           SELECT dataset_id FROM ingestion_counters WHERE requests = 0 ORDER BY updated_at DESC, dataset_id OFFSET $1)`,
        [maxRefusedOnly],
      );
      return result.rowCount ?? 0;
    },

    /** The counts of each id, in the order given (zeros for an id never counted). */
    async countsOf(datasetIds: readonly string[]): Promise<IngestionCounts[]> {
      const read = await reads.request(datasetIds, false);
      return datasetIds.map((id) => read.byId.get(id) ?? zeroCounts());
    },

    /** Accepted ingest calls of one dataset and of every dataset. */
    async requestTotals(datasetId: string): Promise<{ dataset: number; all: number }> {
      const read = await reads.request([datasetId], true);
      return { dataset: read.byId.get(datasetId)?.requests ?? 0, all: read.allRequests };
    },

    /** requestTotals of several datasets, in the order given. */
    async requestTotalsOf(datasetIds: readonly string[]): Promise<{ dataset: number; all: number }[]> {
      const read = await reads.request(datasetIds, true);
      return datasetIds.map((id) => ({ dataset: read.byId.get(id)?.requests ?? 0, all: read.allRequests }));
    },

    /** The counters of the `limit` datasets with the most accepted calls (the shared metric series). */
    async busiest(limit: number): Promise<({ datasetId: string } & IngestionCounts)[]> {
      const result = await pool.query<CounterRow>('SELECT * FROM ingestion_counters WHERE requests > 0 ORDER BY requests DESC, dataset_id LIMIT $1', [limit]);
      return result.rows.map((row) => ({ datasetId: row.dataset_id, ...countsOf(row) }));
    },
  };
}

export type IngestionCounterStore = ReturnType<typeof createIngestionCounterStore>;
