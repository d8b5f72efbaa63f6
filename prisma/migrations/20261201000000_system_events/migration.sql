-- The platform's processing telemetry, as Obsrv's pipeline writes it to the Druid datasource
-- system-events: one row per minute, dataset, stage (ctx_pdata_pid) and error code, with the events
-- counted and their processing time summed. error_code is '' for events a stage passed (so the key
-- can hold it); the view answers NULL for them, as Druid does. The key starts with the minute: a
-- dashboard's window reads only its own rows.
CREATE TABLE "system_events" (
    "minute" TIMESTAMPTZ(3) NOT NULL,
    "ctx_dataset" VARCHAR(200) NOT NULL,
    "ctx_pdata_pid" VARCHAR(32) NOT NULL,
    "error_code" VARCHAR(64) NOT NULL DEFAULT '',
    "ctx_module" VARCHAR(32) NOT NULL DEFAULT 'processing',
    "ctx_dataset_type" VARCHAR(16) NOT NULL,
    "count" BIGINT NOT NULL,
    "total_processing_time" BIGINT NOT NULL,
    CONSTRAINT "system_events_pkey" PRIMARY KEY ("minute", "ctx_dataset", "ctx_pdata_pid", "error_code")
);

-- Queryable like a dataset's datasource (native and SQL), under the name the console queries.
CREATE VIEW "datasources"."system-events" AS
SELECT "minute" AS "__time", "ctx_module", "ctx_pdata_pid", "ctx_dataset", "ctx_dataset_type", "ctx_dataset" AS "dataset",
       NULLIF("error_code", '') AS "error_code", "count", "total_processing_time"
  FROM public."system_events";
