// The ingestion counters in PostgreSQL, shared by every gateway on the database, so whichever copy
// answers ingestionStats reads the same numbers. An accepted call to the embedded event store adds
// its outcome as one row of ingestion_counter_deltas, in the statement that stores its events (the
// tally: no second round trip, and no lock on a row every call of a busy dataset would wait for);
// folds move those rows into ingestion_counters (one row per dataset) in one statement, and every
// read sums both tables, so a count is seen from the moment its events are. Refused calls and calls
// sent to Kafka are added to ingestion_counters directly. Only this module (and src/server.ts) uses
// this file.
import type pg from 'pg';
import type { PublishOutcome, PublishTally } from '../../platform/event-bus/event-bus.js';

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

/** What an accepted call adds (the Kafka path and the tally alike). */
export function acceptedDelta(outcome: PublishOutcome): IngestionDelta {
  return { requests: 1, received: outcome.accepted, processed: outcome.processed ?? outcome.accepted, duplicates: outcome.duplicates ?? 0, failed: outcome.failed ?? 0 };
}

/** The counters' columns of each dataset, summed over ingestion_counters and the deltas not folded yet, the rows chosen by `filter`. */
const countedRows = (filter: string) => `SELECT dataset_id, sum(requests) AS requests, sum(received) AS received, sum(processed) AS processed,
         sum(duplicates) AS duplicates, sum(failed) AS failed, sum(rejected_requests) AS rejected_requests
  FROM (SELECT dataset_id, requests, received, processed, duplicates, failed, rejected_requests FROM ingestion_counters ${filter}
        UNION ALL
        SELECT dataset_id, requests, received, processed, duplicates, failed, 0 FROM ingestion_counter_deltas ${filter}) AS counted
  GROUP BY dataset_id`;
const COUNTED_ROWS = countedRows('WHERE dataset_id = ANY($1::text[])');

/** Accepted calls over every dataset, both tables. */
const ALL_REQUESTS = `SELECT NULL, (SELECT coalesce(sum(requests), 0) FROM ingestion_counters) + (SELECT coalesce(sum(requests), 0) FROM ingestion_counter_deltas), 0, 0, 0, 0, 0`;

/** Deltas one fold moves at most (a fold after an outage of the folds is several statements, none too long). */
const FOLD_BATCH = 50_000;

/**
 * Moves up to $1 deltas into ingestion_counters: one statement, so a reader sees them in one table
 * or the other, never both or neither. SKIP LOCKED: two gateways folding at once take different
 * rows; the counters' rows are written in dataset order, as `add` writes them, so no two writers
 * wait on each other in a cycle.
 */
const FOLD_SQL = `WITH moved AS (
    DELETE FROM ingestion_counter_deltas WHERE id IN (SELECT id FROM ingestion_counter_deltas ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED)
    RETURNING dataset_id, requests, received, processed, duplicates, failed
  ), summed AS (
    INSERT INTO ingestion_counters AS c (dataset_id, requests, received, processed, duplicates, failed)
    SELECT dataset_id, sum(requests), sum(received), sum(processed), sum(duplicates), sum(failed) FROM moved GROUP BY dataset_id ORDER BY dataset_id
    ON CONFLICT (dataset_id) DO UPDATE SET
      requests = c.requests + EXCLUDED.requests, received = c.received + EXCLUDED.received,
      processed = c.processed + EXCLUDED.processed, duplicates = c.duplicates + EXCLUDED.duplicates,
      failed = c.failed + EXCLUDED.failed, updated_at = now()
  )
  SELECT count(*)::int AS moved FROM moved`;

/** The tally the embedded event store writes with accepted calls' events (one delta row per call). */
const TALLY: PublishTally = {
  statement: (parameter) =>
    `INSERT INTO ingestion_counter_deltas (dataset_id, requests, received, processed, duplicates, failed)
     SELECT d.dataset_id, d.requests, d.received, d.processed, d.duplicates, d.failed
     FROM jsonb_to_recordset(${parameter}::jsonb) AS d(dataset_id text, requests int8, received int8, processed int8, duplicates int8, failed int8)`,
  value: (datasetId, outcome) => ({ dataset_id: datasetId, ...acceptedDelta(outcome) }),
};

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
    const result = await pool.query<Omit<CounterRow, 'dataset_id'> & { dataset_id: string | null }>(total ? `${COUNTED_ROWS} UNION ALL ${ALL_REQUESTS}` : COUNTED_ROWS, [wanted]);
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
    /** Written by the embedded event store with each accepted call's events (then folded by `fold`). */
    tally: TALLY,

    /** Moves the tallied deltas into ingestion_counters; the number moved. Reads are the same before and after. */
    async fold(): Promise<number> {
      let moved = 0;
      for (;;) {
        const result = await writePool.query<{ moved: number }>(FOLD_SQL, [FOLD_BATCH]);
        moved += result.rows[0]!.moved;
        if (result.rows[0]!.moved < FOLD_BATCH) return moved;
      }
    },

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
      const result = await pool.query<CounterRow>(`SELECT * FROM (${countedRows('')}) AS counted WHERE requests > 0 ORDER BY requests DESC, dataset_id LIMIT $1`, [limit]);
      return result.rows.map((row) => ({ datasetId: row.dataset_id, ...countsOf(row) }));
    },
  };
}

export type IngestionCounterStore = ReturnType<typeof createIngestionCounterStore>;
