// The jobs table (migration 20261207030000_jobs), in SQL: every state change is one statement whose
// WHERE clause names the states it may leave, so two gateways (a cancel here, a finish there, a sweep
// anywhere) can never both win.
import type pg from 'pg';
import type { JobKind, JobRecord, JobState, ProgressUnit } from './types.js';

interface JobRow {
  id: string;
  kind: JobKind;
  api_id: string;
  state: JobState;
  done: string;
  total: string | null;
  unit: ProgressUnit;
  result: unknown;
  result_key: string | null;
  error_code: string | null;
  error_message: string | null;
  created_by: string;
  instance: string;
  heartbeat_at: Date;
  created_at: Date;
  updated_at: Date;
  finished_at: Date | null;
}

function recordOf(row: JobRow): JobRecord {
  return {
    id: row.id,
    kind: row.kind,
    apiId: row.api_id,
    state: row.state,
    done: Number(row.done),
    total: row.total === null ? null : Number(row.total),
    unit: row.unit,
    result: row.result,
    resultKey: row.result_key,
    errorCode: row.error_code,
    errorMessage: row.error_message,
    createdBy: row.created_by,
    instance: row.instance,
    heartbeatAt: row.heartbeat_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    finishedAt: row.finished_at,
  };
}

const UNFINISHED = `state IN ('QUEUED', 'RUNNING')`;

export interface NewJob {
  id: string;
  kind: JobKind;
  apiId: string;
  unit: ProgressUnit;
  total: number | null;
  createdBy: string;
  instance: string;
}

export interface Outcome {
  state: Exclude<JobState, 'QUEUED' | 'RUNNING'>;
  result?: unknown;
  resultKey?: string | null;
  errorCode?: string | null;
  errorMessage?: string | null;
}

export function createJobStore(pool: pg.Pool) {
  const one = async (text: string, values: unknown[]): Promise<JobRecord | undefined> => {
    const { rows } = await pool.query<JobRow>(text, values);
    return rows[0] && recordOf(rows[0]);
  };
  return {
    insert: (job: NewJob) =>
      one(`INSERT INTO jobs (id, kind, api_id, unit, total, created_by, instance) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`, [
        job.id,
        job.kind,
        job.apiId,
        job.unit,
        job.total,
        job.createdBy,
        job.instance,
      ]) as Promise<JobRecord>,

    find: (id: string) => one(`SELECT * FROM jobs WHERE id = $1`, [id]),

    /** QUEUED → RUNNING; false when it was cancelled meanwhile. */
    async start(id: string): Promise<boolean> {
      const { rowCount } = await pool.query(`UPDATE jobs SET state = 'RUNNING', updated_at = now(), heartbeat_at = now() WHERE id = $1 AND state = 'QUEUED'`, [id]);
      return rowCount === 1;
    },

    /** Progress of a RUNNING job; false when it is not RUNNING any more. */
    async progress(id: string, done: number, total: number | null | undefined): Promise<boolean> {
      const { rowCount } = await pool.query(`UPDATE jobs SET done = $2, total = COALESCE($3, total), updated_at = now(), heartbeat_at = now() WHERE id = $1 AND state = 'RUNNING'`, [
        id,
        done,
        total ?? null,
      ]);
      return rowCount === 1;
    },

    /** The final state of an unfinished job; undefined when it had already finished (a cancel or sweep won). */
    finish: (id: string, outcome: Outcome) =>
      one(
        `UPDATE jobs SET state = $2::text, result = $3::jsonb, result_key = $4, error_code = $5, error_message = $6,
           done = CASE WHEN $2::text = 'SUCCEEDED' THEN COALESCE(total, done) ELSE done END,
           updated_at = now(), finished_at = now()
         WHERE id = $1 AND ${UNFINISHED} RETURNING *`,
        [id, outcome.state, outcome.result === undefined ? null : JSON.stringify(outcome.result), outcome.resultKey ?? null, outcome.errorCode ?? null, outcome.errorMessage ?? null],
      ),

    /** Keeps the given jobs from looking abandoned. */
    async beat(ids: readonly string[]): Promise<void> {
      if (ids.length > 0) await pool.query(`UPDATE jobs SET heartbeat_at = now() WHERE id = ANY($1::uuid[]) AND ${UNFINISHED}`, [ids]);
    },

    /** Fails every unfinished job whose heartbeat is older than `timeoutMs`, naming its gateway; answers them. */
    async failAbandoned(timeoutMs: number): Promise<JobRecord[]> {
      const { rows } = await pool.query<JobRow>(
        `UPDATE jobs SET state = 'FAILED', error_code = 'JOB_ABANDONED',
           error_message = 'the gateway running this job (' || instance || ') stopped answering: no heartbeat for ' || ($1::int / 1000) || ' s (JOB_HEARTBEAT_TIMEOUT_SECONDS)',
           updated_at = now(), finished_at = now()
         WHERE ${UNFINISHED} AND heartbeat_at < now() - make_interval(secs => $1::int / 1000.0) RETURNING *`,
        [timeoutMs],
      );
      return rows.map(recordOf);
    },

    /** Deletes jobs finished before `before`; answers the object keys of their results. */
    async deleteFinishedBefore(before: Date): Promise<string[]> {
      const { rows } = await pool.query<{ result_key: string | null }>(`DELETE FROM jobs WHERE finished_at < $1 RETURNING result_key`, [before]);
      return rows.flatMap((row) => (row.result_key ? [row.result_key] : []));
    },
  };
}

export type JobStore = ReturnType<typeof createJobStore>;
