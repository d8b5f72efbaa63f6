// Rate-limit budgets kept in PostgreSQL, so every gateway on one database enforces one budget per
// caller (N copies behind a balancer no longer give a caller N budgets). One statement per
// decision: an UPSERT that applies the generic cell rate algorithm (GCRA) to the caller's row and
// returns its verdict. GCRA is the token bucket of rate-limit.ts written as one number, the time
// at which the bucket is full again (tat): a call is allowed when, after it, tat is at most
// `burst` calls' worth of time ahead of now. The database's clock is the one clock of all copies.
//
// A table of ours rather than a library: the decision is one short statement on the pool the
// gateway already has (rate-limiter-flexible's PostgreSQL store needs its own table management and
// a second client), and it goes through PgBouncer in transaction mode as it is.
import pg from 'pg';
import type { Logger } from '../logger.js';
import { RateLimiter, type Budget, type RateLimitSettings, type Take } from './rate-limit.js';

const DECIDE = `
INSERT INTO rate_limit_buckets AS b (key, tat_ms, allowed, seen_ms)
SELECT $1, now.ms + $2, true, now.ms FROM (SELECT extract(epoch FROM clock_timestamp()) * 1000 AS ms) AS now
ON CONFLICT (key) DO UPDATE SET
  allowed = GREATEST(b.tat_ms, EXCLUDED.seen_ms) + $2 - EXCLUDED.seen_ms <= $3,
  tat_ms = CASE WHEN GREATEST(b.tat_ms, EXCLUDED.seen_ms) + $2 - EXCLUDED.seen_ms <= $3 THEN GREATEST(b.tat_ms, EXCLUDED.seen_ms) + $2 ELSE b.tat_ms END,
  seen_ms = EXCLUDED.seen_ms
RETURNING allowed, tat_ms, tat_ms - seen_ms AS ahead_ms`;

// A row whose bucket is full again says nothing a missing row would not.
const PRUNE = 'DELETE FROM rate_limit_buckets WHERE tat_ms < extract(epoch FROM clock_timestamp()) * 1000';
const PRUNE_EVERY_MS = 60_000;
const WARN_EVERY_MS = 60_000;
const ALLOWED: Take = { allowed: true };

export class SharedRateLimiter {
  /** Decides while the database cannot: each copy then keeps its own budget, as with RATE_LIMIT_STORE=memory. */
  private readonly fallback: RateLimiter;
  private readonly pruner: NodeJS.Timeout;
  private warnedAt = -Infinity;

  constructor(
    private readonly pool: pg.Pool,
    readonly settings: RateLimitSettings,
    private readonly logger: Logger,
  ) {
    this.fallback = new RateLimiter(settings);
    this.pruner = setInterval(() => void this.pool.query(PRUNE).catch(() => undefined), PRUNE_EVERY_MS);
    this.pruner.unref();
  }

  enabled(budget: Budget): boolean {
    return this.settings[budget].perSecond > 0;
  }

  /** Takes `tokens` (at most the burst: the caller checks) from the caller's budget, or none when they are not all there. */
  take(budget: Budget, callerKey: string, tokens = 1): Take | Promise<Take> {
    const { perSecond, burst } = this.settings[budget];
    if (perSecond <= 0) return ALLOWED;
    const intervalMs = 1000 / perSecond;
    const toleranceMs = burst * intervalMs;
    const costMs = tokens * intervalMs;
    return this.pool.query<{ allowed: boolean; tat_ms: number; ahead_ms: number }>(DECIDE, [`${budget}:${callerKey}`, costMs, toleranceMs]).then(
      ({ rows }) => {
        const { allowed, tat_ms: fullAt, ahead_ms: aheadMs } = rows[0]!;
        if (allowed) return { allowed: true, state: { remaining: Math.floor((toleranceMs - aheadMs) / intervalMs + 1e-9), fullAt: Math.ceil(fullAt) } };
        // The call fits once tat + its cost - now is within the tolerance again.
        return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((aheadMs + costMs - toleranceMs) / 1000)) };
      },
      (error: unknown) => {
        const now = Date.now();
        if (now - this.warnedAt >= WARN_EVERY_MS) {
          this.warnedAt = now;
          this.logger.warn({ err: error }, 'rate limits: the shared store did not answer; this copy decides alone until it does');
        }
        return this.fallback.take(budget, callerKey, tokens);
      },
    );
  }

  close(): void {
    clearInterval(this.pruner);
  }
}
