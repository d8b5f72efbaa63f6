-- Rate-limit budgets shared by every gateway on this database (src/auth/shared-rate-limit.ts): one
-- row per caller and budget, updated by one UPSERT per decision. UNLOGGED: a budget is worth no WAL
-- write per request, and after a crash every caller simply starts with a full bucket.
CREATE UNLOGGED TABLE "rate_limit_buckets" (
    "key" TEXT NOT NULL,
    "tat_ms" DOUBLE PRECISION NOT NULL,
    "allowed" BOOLEAN NOT NULL,
    "seen_ms" DOUBLE PRECISION NOT NULL,

    CONSTRAINT "rate_limit_buckets_pkey" PRIMARY KEY ("key")
);

CREATE INDEX "rate_limit_buckets_tat_ms_idx" ON "rate_limit_buckets"("tat_ms");
