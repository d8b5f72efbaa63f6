-- Ingestion counters shared by every gateway on this database (src/modules/ingestion/store.ts):
-- one row per dataset id, bumped by one UPSERT per ingest call, so every copy answers the same
-- ingestionStats. UNLOGGED: no WAL write (and no commit flush) per ingest call; after a crash the
-- counters start again from zero, as a restarted process's did.
CREATE UNLOGGED TABLE "ingestion_counters" (
    "dataset_id" TEXT NOT NULL,
    "requests" BIGINT NOT NULL DEFAULT 0,
    "received" BIGINT NOT NULL DEFAULT 0,
    "processed" BIGINT NOT NULL DEFAULT 0,
    "duplicates" BIGINT NOT NULL DEFAULT 0,
    "failed" BIGINT NOT NULL DEFAULT 0,
    "rejected_requests" BIGINT NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ingestion_counters_pkey" PRIMARY KEY ("dataset_id")
);
