// Jobs (src/modules/jobs): long work run in the background, seen by every copy of the gateway.
import { z } from 'zod';

export const jobVariables = z.object({
  JOB_HEARTBEAT_TIMEOUT_SECONDS: z.coerce
    .number()
    .int()
    .min(3)
    .max(86_400)
    .default(60)
    .describe('Seconds a running job may go without a heartbeat from the gateway that runs it (it beats every third of this) before any gateway marks it FAILED, naming the gateway that stopped.'),
  JOB_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2).describe('Jobs one gateway runs at once; more wait QUEUED for a free slot.'),
  JOB_RESULT_RETENTION_HOURS: z.coerce.number().positive().max(8_760).default(168).describe('Hours a finished job (its status and its result in the object store) is kept before it is deleted.'),
});

type JobVariables = z.infer<typeof jobVariables>;

export function jobSettings(e: JobVariables) {
  return {
    heartbeatTimeoutMs: e.JOB_HEARTBEAT_TIMEOUT_SECONDS * 1000,
    concurrency: e.JOB_CONCURRENCY,
    retentionMs: Math.round(e.JOB_RESULT_RETENTION_HOURS * 3_600_000),
  };
}
