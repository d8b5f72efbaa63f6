// Runs jobs and answers for them. A job is started on the gateway that took the request (its input,
// e.g. an uploaded file, is there), runs in one of JOB_CONCURRENCY slots, beats a heartbeat while it
// is unfinished, and writes each step of progress to its row; every copy reads the row to answer
// `job`, and hears its changes (announced as "jobs:<id>") to feed `jobProgress`. A job whose gateway
// died is failed by any copy's sweep once its heartbeat is older than JOB_HEARTBEAT_TIMEOUT_SECONDS.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { GatewayError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { ChangeFeed } from '../../platform/cache/change-feed.js';
import type { FileService } from '../files/index.js';
import type { JobStore, Outcome } from './store.js';
import { FINAL_STATES, JOB_KIND_API_IDS, type JobRecord, type JobWork } from './types.js';

/** Results up to this size are kept in the row too (Job.result.value); larger ones only behind the link. */
export const RESULT_VALUE_MAX_BYTES = 1024 * 1024;

/** How often a follower re-reads its job without an announcement (one lost while the feed reconnected). */
const FOLLOW_POLL_MS = 5_000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What a caller's access must allow to see a job: the same check a root field passes (src/auth/access.ts). */
export interface JobAccess {
  authorize(apiIds: readonly string[]): void;
}

export interface JobServiceOptions {
  heartbeatTimeoutMs: number;
  concurrency: number;
  retentionMs: number;
  logger: Logger;
  /** This gateway among its copies, recorded on the jobs it runs (named when one is abandoned). */
  instance?: string;
}

class JobCancelled extends Error {}

export function createJobService(store: JobStore, files: FileService, changes: ChangeFeed, options: JobServiceOptions) {
  const instance = options.instance ?? `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const { logger } = options;
  /** Jobs this gateway holds (queued here or running), with how to stop each. */
  const held = new Map<string, AbortController>();
  const waiting: { id: string; work: JobWork }[] = [];
  let running = 0;
  /** Followers of each job id (jobProgress), woken when the job's row changes. */
  const followers = new Map<string, Set<() => void>>();
  const wakeAll = () => followers.forEach((set) => set.forEach((wake) => wake()));

  changes.subscribe({
    change({ table, key }) {
      if (table !== 'jobs') return;
      if (key === '*') return wakeAll();
      followers.get(key)?.forEach((wake) => wake());
      // A job held here may have been cancelled on another copy: stop its work now, not at its next step.
      const controller = held.get(key);
      if (controller) {
        void store.find(key).then(
          (job) => job?.state === 'CANCELLED' && controller.abort(new JobCancelled()),
          () => undefined,
        );
      }
    },
    reset: wakeAll,
  });

  const invalidId = (id: string) =>
    new GatewayError('JOB_INVALID_INPUT', `id ${JSON.stringify(id.slice(0, 80))} is not a job id (job ids are UUIDs, as startSchemaInference and the 202 answers give them)`);

  /** The job, to a caller who could run its work; JOB_NOT_FOUND, JOB_INVALID_INPUT or FORBIDDEN otherwise. */
  async function visible(id: string, access: JobAccess): Promise<JobRecord> {
    if (!UUID.test(id)) throw invalidId(id);
    const job = await store.find(id);
    if (!job) throw new GatewayError('JOB_NOT_FOUND', `no job has id ${id} (finished jobs are kept JOB_RESULT_RETENTION_HOURS)`);
    access.authorize([job.apiId]);
    return job;
  }

  async function storeResult(id: string, value: unknown): Promise<Pick<Outcome, 'result' | 'resultKey'>> {
    const json = JSON.stringify(value ?? null);
    const folder = await mkdtemp(path.join(os.tmpdir(), 'gateway-job-'));
    try {
      const file = path.join(folder, 'result.json');
      await writeFile(file, json);
      const key = `jobs/${id}/result.json`;
      await files.storeAt(key, file, 'application/json');
      return { resultKey: key, result: Buffer.byteLength(json) <= RESULT_VALUE_MAX_BYTES ? (value ?? null) : undefined };
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  }

  async function outcomeOf(id: string, work: JobWork, controller: AbortController): Promise<Outcome> {
    if (!(await store.start(id))) return { state: 'CANCELLED' };
    const report = async (done: number, total?: number | null) => {
      if (controller.signal.aborted) return false;
      return store.progress(id, done, total);
    };
    try {
      const value = await work.run(report, controller.signal);
      if (controller.signal.aborted) return { state: 'CANCELLED' };
      return { state: 'SUCCEEDED', ...(await storeResult(id, value)) };
    } catch (error) {
      if (controller.signal.aborted || error instanceof JobCancelled) return { state: 'CANCELLED' };
      if (error instanceof GatewayError) return { state: 'FAILED', errorCode: error.code, errorMessage: error.message };
      logger.error({ err: error, jobId: id }, 'job failed unexpectedly');
      return { state: 'FAILED', errorCode: 'INTERNAL_SERVER_ERROR', errorMessage: 'the job failed on an unexpected error; the gateway log has it under this job id' };
    }
  }

  async function run(id: string, work: JobWork): Promise<void> {
    const controller = held.get(id)!;
    try {
      const outcome = await outcomeOf(id, work, controller);
      // A cancel (or a sweep) already finished the row: its state stands.
      if (outcome.state !== 'CANCELLED') await store.finish(id, outcome);
    } catch (error) {
      logger.error({ err: error, jobId: id }, 'job: its outcome could not be recorded');
    } finally {
      held.delete(id);
      await work.release?.().catch(() => undefined);
    }
  }

  function schedule(): void {
    while (running < options.concurrency && waiting.length > 0) {
      const next = waiting.shift()!;
      running += 1;
      void run(next.id, next.work).finally(() => {
        running -= 1;
        schedule();
      });
    }
  }

  return {
    instance,

    /** Records a job for `work` and starts it (or queues it here); answers it as recorded, QUEUED. */
    async start(work: JobWork, createdBy: string): Promise<JobRecord> {
      const id = randomUUID();
      let job: JobRecord;
      try {
        job = await store.insert({ id, kind: work.kind, apiId: JOB_KIND_API_IDS[work.kind], unit: work.unit, total: work.total, createdBy, instance });
      } catch (error) {
        await work.release?.().catch(() => undefined);
        throw error;
      }
      held.set(id, new AbortController());
      waiting.push({ id, work });
      schedule();
      return job;
    },

    get: visible,

    /** Cancels an unfinished job, wherever it runs: CANCELLED at once; its work stops at its next step. */
    async cancel(id: string, access: JobAccess, actor: string): Promise<JobRecord> {
      const job = await visible(id, access);
      const cancelled = FINAL_STATES.has(job.state) ? undefined : await store.finish(id, { state: 'CANCELLED', errorCode: 'JOB_CANCELLED', errorMessage: `cancelled by ${actor}` });
      if (!cancelled) {
        const now = (await store.find(id)) ?? job;
        throw new GatewayError('JOB_ALREADY_FINISHED', `job ${id} has already finished (${now.state}); only a QUEUED or RUNNING job can be cancelled`);
      }
      held.get(id)?.abort(new JobCancelled());
      return cancelled;
    },

    /** The job as it is now, then at each change, ending after its final state. */
    async follow(id: string, access: JobAccess): Promise<AsyncGenerator<JobRecord>> {
      const first = await visible(id, access);
      let wake: (() => void) | undefined;
      let woken = false;
      const waker = () => {
        woken = true;
        wake?.();
      };
      return (async function* () {
        const set = followers.get(id) ?? new Set();
        followers.set(id, set);
        set.add(waker);
        try {
          let job: JobRecord | undefined = first;
          let last: JobRecord | undefined;
          while (job) {
            if (!last || job.state !== last.state || job.done !== last.done || job.total !== last.total) yield job;
            if (FINAL_STATES.has(job.state)) return;
            last = job;
            if (!woken) {
              await new Promise<void>((resolve) => {
                const timer = setTimeout(resolve, FOLLOW_POLL_MS);
                timer.unref();
                wake = () => {
                  clearTimeout(timer);
                  resolve();
                };
              });
            }
            woken = false;
            wake = undefined;
            job = await store.find(id);
          }
        } finally {
          set.delete(waker);
          if (set.size === 0) followers.delete(id);
        }
      })();
    },

    /** A fresh pre-signed link to a job's result (null before it has one). */
    async resultLink(job: JobRecord): Promise<{ url: string; expiresAt: Date } | null> {
      return job.resultKey ? files.readLink(job.resultKey) : null;
    },

    /**
     * Beats the heartbeat of the jobs held here, fails abandoned ones (any copy may), and deletes jobs
     * finished longer ago than the retention; on stop, fails what is still held here, saying why.
     */
    startUpkeep() {
      const beatEveryMs = Math.max(1_000, Math.floor(options.heartbeatTimeoutMs / 3));
      let busy: Promise<void> | undefined;
      const tick = () => {
        busy ??= (async () => {
          await store.beat([...held.keys()]);
          for (const job of await store.failAbandoned(options.heartbeatTimeoutMs)) logger.warn({ jobId: job.id }, `job ${job.id}: ${job.errorMessage}`);
          for (const key of await store.deleteFinishedBefore(new Date(Date.now() - options.retentionMs))) await files.removeFile(key).catch(() => undefined);
        })()
          .catch((error: unknown) => logger.warn({ err: error }, 'jobs: heartbeat or sweep failed; tried again at the next beat'))
          .finally(() => (busy = undefined));
      };
      const timer = setInterval(tick, beatEveryMs);
      timer.unref();
      return {
        async stop(): Promise<void> {
          clearInterval(timer);
          await busy;
          waiting.length = 0;
          const ids = [...held.keys()];
          for (const controller of held.values()) controller.abort(new Error('gateway stopping'));
          await Promise.all(
            ids.map((id) =>
              store
                .finish(id, { state: 'FAILED', errorCode: 'JOB_ABANDONED', errorMessage: `the gateway running this job (${instance}) stopped before it finished; start it again` })
                .catch(() => undefined),
            ),
          );
        },
      };
    },
  };
}

export type JobService = ReturnType<typeof createJobService>;
