// Jobs: long work (exports, connector registrations, schema inference from an uploaded file) run in
// the background, its state kept in PostgreSQL so that every copy of the gateway answers for it.

export type JobState = 'QUEUED' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELLED';

/** States a job never leaves. */
export const FINAL_STATES: ReadonlySet<JobState> = new Set(['SUCCEEDED', 'FAILED', 'CANCELLED']);

/**
 * Each kind of job and the API id of the work it runs: whoever holds that id could run the work, and
 * so may see the job (its status, its result) and cancel it. Nobody else may.
 */
export const JOB_KIND_API_IDS = {
  SCHEMA_INFERENCE: 'api.datasets.dataschema',
  DATASET_EXPORT: 'api.datasets.export',
  CONNECTOR_REGISTRATION: 'api.connector.register',
} as const;

export type JobKind = keyof typeof JOB_KIND_API_IDS;

/** What a job's progress counts. */
export type ProgressUnit = 'bytes' | 'steps';

export interface JobRecord {
  id: string;
  kind: JobKind;
  apiId: string;
  state: JobState;
  done: number;
  total: number | null;
  unit: ProgressUnit;
  /** The result as the synchronous call answers it; null when larger than RESULT_VALUE_MAX_BYTES. */
  result: unknown;
  /** Where the result lies in the object store. */
  resultKey: string | null;
  errorCode: string | null;
  errorMessage: string | null;
  createdBy: string;
  instance: string;
  heartbeatAt: Date;
  createdAt: Date;
  updatedAt: Date;
  finishedAt: Date | null;
}

/**
 * Reports progress; resolves false when the job is no longer RUNNING (cancelled, or failed by a sweep),
 * and the work should stop. Each call is one UPDATE: the work chooses how often to report.
 */
export type ProgressReporter = (done: number, total?: number | null) => Promise<boolean>;

/** One piece of long work: what its progress counts, and the work itself. */
export interface JobWork {
  kind: JobKind;
  unit: ProgressUnit;
  total: number | null;
  /** Does the work; its answer is the job's result. `signal` aborts when the job is cancelled. */
  run(report: ProgressReporter, signal: AbortSignal): Promise<unknown>;
  /** Frees what the work held (a spooled upload), whatever the outcome; also when it never ran. */
  release?: () => Promise<void>;
}
