// Token buckets per caller, in memory. Each caller has one bucket per budget (general calls, and
// ingestion, which has its own): a bucket holds up to `burst` tokens and refills at `perSecond`.
//
// The buckets live in this process only: N gateway processes behind a load balancer would give a
// caller up to N times the budget, so with an external database the gateway keeps them in
// PostgreSQL instead (shared-rate-limit.ts); this one serves the embedded single process, and the
// shared store while the database does not answer.

export interface BucketSettings {
  /** Tokens added per second; 0 turns this budget off. */
  perSecond: number;
  /** Most tokens a bucket holds (the largest burst). */
  burst: number;
}

export type Budget = 'general' | 'ingest';

export interface RateLimitSettings {
  general: BucketSettings;
  ingest: BucketSettings;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/**
 * Result of taking tokens: allowed (with what the bucket holds after it, when the budget is on), or
 * how long until enough are there.
 */
export type Take = { allowed: true; state?: BucketState } | { allowed: false; retryAfterSeconds: number };

/** A caller's bucket right after a decision. */
export interface BucketState {
  /** Whole tokens left. */
  remaining: number;
  /** When the bucket is full again (epoch ms). */
  fullAt: number;
}

const ALLOWED: Take = { allowed: true };
// Full buckets carry no information; they are dropped when the table grows past this.
const SWEEP_AT = 10_000;

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    readonly settings: RateLimitSettings,
    private readonly now: () => number = () => performance.now(),
  ) {}

  enabled(budget: Budget): boolean {
    return this.settings[budget].perSecond > 0;
  }

  /** Takes `tokens` (at most the burst: the caller checks) from the caller's bucket, or none when they are not all there. */
  take(budget: Budget, callerKey: string, tokens = 1): Take {
    const { perSecond, burst } = this.settings[budget];
    if (perSecond <= 0) return ALLOWED;
    const key = `${budget}\u0000${callerKey}`;
    const now = this.now();
    let bucket = this.buckets.get(key);
    if (!bucket) {
      if (this.buckets.size >= SWEEP_AT) this.sweep(now);
      // Still full of callers mid-burst (a flood of distinct keys): forget the oldest, which only
      // ever gives them a fresh bucket.
      for (const oldest of this.buckets.keys()) {
        if (this.buckets.size < SWEEP_AT * 5) break;
        this.buckets.delete(oldest);
      }
      bucket = { tokens: burst, updatedAt: now };
      this.buckets.set(key, bucket);
    } else {
      bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.updatedAt) / 1000) * perSecond);
      bucket.updatedAt = now;
    }
    if (bucket.tokens >= tokens) {
      bucket.tokens -= tokens;
      return { allowed: true, state: { remaining: Math.floor(bucket.tokens), fullAt: Date.now() + Math.ceil(((burst - bucket.tokens) / perSecond) * 1000) } };
    }
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((tokens - bucket.tokens) / perSecond)) };
  }

  /** Callers currently tracked (for tests and the soak report). */
  get size(): number {
    return this.buckets.size;
  }

  private sweep(now: number): void {
    for (const [key, bucket] of this.buckets) {
      const settings = this.settings[key.startsWith('ingest\u0000') ? 'ingest' : 'general'];
      if (bucket.tokens + ((now - bucket.updatedAt) / 1000) * settings.perSecond >= settings.burst) this.buckets.delete(key);
    }
  }
}
