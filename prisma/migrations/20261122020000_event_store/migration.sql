-- CreateTable
CREATE TABLE "events" (
    "id" BIGSERIAL NOT NULL,
    "dataset_id" VARCHAR(200) NOT NULL,
    "event_time" TIMESTAMPTZ(3) NOT NULL,
    "arrival_time" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "msgid" VARCHAR(256) NOT NULL,
    "payload" JSONB NOT NULL,

    CONSTRAINT "events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "failed_events" (
    "id" BIGSERIAL NOT NULL,
    "dataset_id" VARCHAR(200) NOT NULL,
    "stage" VARCHAR(32) NOT NULL,
    "reason" TEXT NOT NULL,
    "arrival_time" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "msgid" VARCHAR(256) NOT NULL,
    "payload" JSONB NOT NULL,

    CONSTRAINT "failed_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "event_dedup" (
    "dataset_id" VARCHAR(200) NOT NULL,
    "dedup_key" TEXT NOT NULL,
    "seen_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "event_dedup_pkey" PRIMARY KEY ("dataset_id","dedup_key")
);

-- CreateTable
CREATE TABLE "master_records" (
    "dataset_id" VARCHAR(200) NOT NULL,
    "record_key" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "master_records_pkey" PRIMARY KEY ("dataset_id","record_key")
);

-- CreateIndex
CREATE INDEX "events_dataset_id_event_time_idx" ON "events"("dataset_id", "event_time");

-- CreateIndex
CREATE INDEX "events_msgid_idx" ON "events"("msgid");

-- CreateIndex
CREATE INDEX "failed_events_dataset_id_stage_idx" ON "failed_events"("dataset_id", "stage");

