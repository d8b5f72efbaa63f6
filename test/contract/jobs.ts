// Long work as jobs (src/modules/jobs), written once for REST and GraphQL: an export started as a
// job runs to its end with what the direct export answers; a finished job cannot be cancelled; an
// unknown or malformed job id is refused with its code. What only one transport has (202 with its
// status link, progress over graphql-ws and SSE, uploads, a second gateway) stays in
// test/modules/jobs.test.ts.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { seedDataset } from '../support/datasets.js';
import { expectFailure, expectOk, type Outcome, type SuiteContext } from './harness.js';

export interface Job {
  id: string;
  kind: string;
  state: string;
  progress: { done: number; total: number | null; unit: string };
  result: { value: unknown } | null;
  error: { code: string; message: string } | null;
}

export interface JobsDriver {
  /** The export answered at once (no job). */
  exportNow(datasetId: string): Promise<Outcome<unknown>>;
  /** The export as a job (REST: Prefer: respond-async). */
  startExport(datasetId: string): Promise<Outcome<Job>>;
  read(jobId: string): Promise<Outcome<Job>>;
  cancel(jobId: string): Promise<Outcome<Job>>;
}

const FINISHED = ['SUCCEEDED', 'FAILED', 'CANCELLED'];

export function jobScenarios(ctx: SuiteContext<JobsDriver>): void {
  /** Reads the job until it has finished (an export is one step: well under a second). */
  async function finished(jobId: string): Promise<Job> {
    for (;;) {
      const job = expectOk(await ctx.driver.read(jobId));
      if (FINISHED.includes(job.state)) return job;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async function exportedDataset(): Promise<string> {
    const id = `jobs-contract-${randomUUID().slice(0, 8)}`;
    await seedDataset(ctx.gw, id, 'Live');
    return id;
  }

  describe('an export as a job', () => {
    it('runs to SUCCEEDED, one step of one, with the definition the direct export answers as its result', async () => {
      const id = await exportedDataset();
      const started = expectOk(await ctx.driver.startExport(id));
      expect(started).toMatchObject({ kind: 'DATASET_EXPORT', id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
      const job = await finished(started.id);
      expect(job).toMatchObject({ state: 'SUCCEEDED', progress: { done: 1, total: 1, unit: 'steps' }, error: null });
      expect(job.result!.value).toEqual(expectOk(await ctx.driver.exportNow(id)));
    });

    it('is refused at once, with DATASET_NOT_FOUND, for a dataset that is not there', async () => {
      expectFailure(await ctx.driver.startExport('no-such-dataset'), 'DATASET_NOT_FOUND', /no-such-dataset/);
    });

    it('cannot be cancelled once finished: JOB_ALREADY_FINISHED, and it stays SUCCEEDED', async () => {
      const job = await finished(expectOk(await ctx.driver.startExport(await exportedDataset())).id);
      expectFailure(await ctx.driver.cancel(job.id), 'JOB_ALREADY_FINISHED', /already finished \(SUCCEEDED\); only a QUEUED or RUNNING job can be cancelled/);
      expect(expectOk(await ctx.driver.read(job.id)).state).toBe('SUCCEEDED');
    });
  });

  describe('job ids', () => {
    it('answers an unknown id with JOB_NOT_FOUND, when read and when cancelled', async () => {
      const unknown = randomUUID();
      const message = new RegExp(`^no job has id ${unknown} \\(finished jobs are kept JOB_RESULT_RETENTION_HOURS\\)$`);
      expectFailure(await ctx.driver.read(unknown), 'JOB_NOT_FOUND', message);
      expectFailure(await ctx.driver.cancel(unknown), 'JOB_NOT_FOUND', message);
    });

    it('refuses an id that is not a UUID with JOB_INVALID_INPUT, naming what a job id is', async () => {
      const outcome = await ctx.driver.read('not-a-job');
      expectFailure(outcome, 'JOB_INVALID_INPUT');
      // REST's request schema names the path parameter; GraphQL's service says what a job id is.
      expect(outcome.ok ? '' : outcome.message).toMatch(ctx.transport === 'rest' ? /job_id.* must match format "uuid"/ : /not a job id \(job ids are UUIDs/);
    });
  });
}
