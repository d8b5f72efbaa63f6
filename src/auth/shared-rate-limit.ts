// Rate-limit budgets kept in PostgreSQL, so every gateway on one database enforces one budget per
// caller (N copies behind a balancer no longer give a caller N budgets). Each decision applies the
// generic cell rate algorithm (GCRA) to the caller's row: GCRA is the token bucket of rate-limit.ts
// written as one number, the time at which the bucket is full again (tat): a call is allowed when,
// after it, tat is at most `burst` calls' worth of time ahead of now. The database's clock is the
// one clock of all copies.
//
// Decisions go in batches: while one call of rate_limit_decide (a SQL function, see its migration)
// is under way, the decisions that arrive wait and then go together in the next call. A busy copy
// so makes one round trip, and the database one short transaction, for many callers' decisions
// rather than one UPSERT each; each decision is still made against the row as the previous one
// left it, so a budget stays exact across copies and within a batch.
//
// A table of ours rather than a library: the decision is one short statement on the pool the
// gateway already has (rate-limiter-flexible's PostgreSQL store needs its own table management and
// a second client), and it goes through PgBouncer in transaction mode as it is (no named statement).
import pg from 'pg';
import type { Logger } from '../logger.js';
import { RateLimiter, type Budget, type RateLimitSettings, type Take } from './rate-limit.js';

const DECIDE = 'SELECT fits, full_at_ms, ahead_ms FROM rate_limit_decide($1::text[], $2::float8[], $3::float8[])';
// Enough for any burst of arrivals during one call; more wait for the next.
const MAX_BATCH = 1000;

// A row whose bucket is full again says nothing a missing row would not.
const PRUNE = 'DELETE FROM rate_limit_buckets WHERE tat_ms < extract(epoch FROM clock_timestamp()) * 1000';
const PRUNE_EVERY_MS = 60_000;
const WARN_EVERY_MS = 60_000;
const ALLOWED: Take = { allowed: true };

interface Decision {
  budget: Budget;
  callerKey: string;
  tokens: number;
  /** `${budget}:${callerKey}`, the row. */
  key: string;
  intervalMs: number;
  costMs: number;
  toleranceMs: number;
  settle(take: Take): void;
}

interface Verdict {
  fits: boolean;
  full_at_ms: number;
  ahead_ms: number;
}

function takeOf(decision: Decision, { fits, full_at_ms: fullAt, ahead_ms: aheadMs }: Verdict): Take {
  const { intervalMs, costMs, toleranceMs } = decision;
  if (fits) return { allowed: true, state: { remaining: Math.floor((toleranceMs - aheadMs) / intervalMs + 1e-9), fullAt: Math.ceil(fullAt) } };
  // The call fits once tat + its cost - now is within the tolerance again.
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((aheadMs + costMs - toleranceMs) / 1000)) };
}

const byKey = (a: Decision, b: Decision) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

export class SharedRateLimiter {
  /** Decides while the database cannot: each copy then keeps its own budget, as with RATE_LIMIT_STORE=memory. */
  private readonly fallback: RateLimiter;
  private readonly pruner: NodeJS.Timeout;
  private warnedAt = -Infinity;
  /** Decisions waiting for the next call, in the order they arrived. */
  private waiting: Decision[] = [];
  private sending = false;

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
    return new Promise<Take>((settle) => {
      this.waiting.push({ budget, callerKey, tokens, key: `${budget}:${callerKey}`, intervalMs, costMs: tokens * intervalMs, toleranceMs: burst * intervalMs, settle });
      if (!this.sending) {
        this.sending = true;
        // After this turn of the event loop: requests read in the same turn go in the first call too.
        setImmediate(() => void this.sendWaiting());
      }
    });
  }

  /** One call at a time, until no decision is waiting. */
  private async sendWaiting(): Promise<void> {
    while (this.waiting.length > 0) {
      const batch = this.waiting.length <= MAX_BATCH ? this.waiting : this.waiting.slice(0, MAX_BATCH);
      this.waiting = batch === this.waiting ? [] : this.waiting.slice(MAX_BATCH);
      // Stable: one caller's decisions keep their order.
      const sorted = batch.length > 1 ? [...batch].sort(byKey) : batch;
      try {
        const { rows } = await this.pool.query<Verdict>(DECIDE, [sorted.map((d) => d.key), sorted.map((d) => d.costMs), sorted.map((d) => d.toleranceMs)]);
        sorted.forEach((decision, index) => decision.settle(takeOf(decision, rows[index]!)));
      } catch (error) {
        const now = Date.now();
        if (now - this.warnedAt >= WARN_EVERY_MS) {
          this.warnedAt = now;
          this.logger.warn({ err: error }, 'rate limits: the shared store did not answer; this copy decides alone until it does');
        }
        for (const decision of batch) decision.settle(this.fallback.take(decision.budget, decision.callerKey, decision.tokens));
      }
    }
    this.sending = false;
  }

  close(): void {
    clearInterval(this.pruner);
  }
}
