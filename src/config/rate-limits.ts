// Calls per second per caller, with a budget of their own for ingestion.
import { z } from 'zod';
import type { AuthVariables } from './auth.js';

export const rateLimitVariables = z.object({
  RATE_LIMIT_RPS: z.coerce.number().min(0).optional().describe('Calls per second per caller (token bucket, per process); 0: off. Default: 100, or off with AUTH_MODE=none.'),
  RATE_LIMIT_BURST: z.coerce.number().int().min(1).optional().describe('Largest burst of calls per caller (default: 2 × RATE_LIMIT_RPS).'),
  RATE_LIMIT_INGEST_RPS: z.coerce.number().min(0).optional().describe('Ingestion calls (api.data.in) per second per caller, a budget of its own; 0: off. Default: 20, or off with AUTH_MODE=none.'),
  RATE_LIMIT_INGEST_BURST: z.coerce.number().int().min(1).optional().describe('Largest burst of ingestion calls per caller (default: 2 × RATE_LIMIT_INGEST_RPS).'),
});

export type RateLimitVariables = z.infer<typeof rateLimitVariables>;

/** Unset limits: on when callers are authenticated, off with AUTH_MODE=none (one local user). */
export function rateLimitSettings(e: RateLimitVariables & Pick<AuthVariables, 'AUTH_MODE'>) {
  const open = e.AUTH_MODE === 'none';
  const general = e.RATE_LIMIT_RPS ?? (open ? 0 : 100);
  const ingest = e.RATE_LIMIT_INGEST_RPS ?? (open ? 0 : 20);
  return {
    general: { perSecond: general, burst: e.RATE_LIMIT_BURST ?? Math.max(1, Math.ceil(general * 2)) },
    ingest: { perSecond: ingest, burst: e.RATE_LIMIT_INGEST_BURST ?? Math.max(1, Math.ceil(ingest * 2)) },
  };
}
