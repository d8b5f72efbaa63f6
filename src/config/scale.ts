// Running several copies of the gateway on one database (docs/operating.md "Running at scale"): the listening
// connection, draining on SIGTERM and where rate-limit budgets are kept.
import { z } from 'zod';
import { SECRET } from './values.js';

export const scaleVariables = z.object({
  DATABASE_LISTEN_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// connection string')
    .optional()
    .describe(
      'Direct (session) connection to the same database for what a transaction-mode pooler cannot carry: LISTEN, which keeps the caches true. Set it when DATABASE_URL points at PgBouncer in transaction mode (a gateway that hears no announcement over it caches nothing and logs an error). Default: DATABASE_URL.',
    )
    .meta(SECRET),
  SHUTDOWN_DRAIN_SECONDS: z.coerce
    .number()
    .min(0)
    .max(300)
    .default(0)
    .describe(
      'Seconds a stopping gateway (SIGTERM) keeps serving while /readyz answers 503, so a load balancer stops sending it traffic before it closes its socket; then it finishes requests in flight and exits. Behind a balancer: more than its health-check interval × fall count. 0: close at once.',
    ),
  RATE_LIMIT_STORE: z
    .enum(['memory', 'postgres'])
    .optional()
    .describe(
      'Where rate-limit budgets are kept: `postgres` (table rate_limit_buckets, the decisions that arrive during one round trip sent together in the next: every copy on the database shares one budget per caller) or `memory` (this process only). Default: postgres with DATABASE_URL, memory with the embedded PostgreSQL.',
    ),
});

type ScaleEnvironment = z.infer<typeof scaleVariables> & { DATABASE_URL?: string | undefined };

export function scaleProblems(e: ScaleEnvironment): string[] {
  if (e.DATABASE_LISTEN_URL && !e.DATABASE_URL) return ['DATABASE_LISTEN_URL: needs DATABASE_URL (the embedded PostgreSQL listens on its own connection already)'];
  return [];
}

export function scaleSettings(e: ScaleEnvironment) {
  return {
    /** Session connection for LISTEN; unset: the pool's own URL. */
    ...(e.DATABASE_LISTEN_URL ? { listenUrl: e.DATABASE_LISTEN_URL } : {}),
    /** How long a stopping gateway keeps serving, not ready, before it closes its socket. */
    drainMs: Math.round(e.SHUTDOWN_DRAIN_SECONDS * 1000),
    rateLimitStore: e.RATE_LIMIT_STORE ?? (e.DATABASE_URL ? ('postgres' as const) : ('memory' as const)),
  };
}
