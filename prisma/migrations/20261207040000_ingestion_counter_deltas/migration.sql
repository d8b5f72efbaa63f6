-- One row per accepted ingest call to the embedded event store, written in the statement that
-- stores the call's events (src/modules/ingestion/store.ts: the tally), so the answer waits for one
-- round trip and concurrent calls to one dataset never queue on its ingestion_counters row. Folds
-- move the rows into ingestion_counters; reads sum both tables. UNLOGGED, as ingestion_counters is.
CREATE UNLOGGED TABLE "ingestion_counter_deltas" (
    "id" BIGSERIAL NOT NULL,
    "dataset_id" TEXT NOT NULL,
    "requests" BIGINT NOT NULL,
    "received" BIGINT NOT NULL,
    "processed" BIGINT NOT NULL,
    "duplicates" BIGINT NOT NULL,
    "failed" BIGINT NOT NULL,

    CONSTRAINT "ingestion_counter_deltas_pkey" PRIMARY KEY ("id")
);
