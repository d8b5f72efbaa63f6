-- CreateTable
CREATE TABLE "datasets" (
    "dataset_id" VARCHAR(200) NOT NULL,
    "stage" VARCHAR(8) NOT NULL,
    "name" VARCHAR(300) NOT NULL,
    "type" VARCHAR(16) NOT NULL,
    "status" VARCHAR(16) NOT NULL,
    "tags" TEXT[],
    "version" INTEGER NOT NULL DEFAULT 1,
    "version_key" VARCHAR(32) NOT NULL,
    "api_version" VARCHAR(8),
    "data_schema" JSON NOT NULL,
    "extraction_config" JSON,
    "validation_config" JSON,
    "dedup_config" JSON,
    "denorm_config" JSON,
    "router_config" JSON,
    "dataset_config" JSON NOT NULL,
    "transformations_config" JSON NOT NULL,
    "connectors_config" JSON NOT NULL,
    "sample_data" JSON,
    "entry_topic" VARCHAR(255),
    "denorm_sources" TEXT[],
    "created_by" VARCHAR(120) NOT NULL,
    "updated_by" VARCHAR(120) NOT NULL,
    "created_date" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_date" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "published_date" TIMESTAMPTZ(3),

    CONSTRAINT "datasets_pkey" PRIMARY KEY ("dataset_id","stage")
);

-- CreateIndex
CREATE INDEX "datasets_status_idx" ON "datasets"("status");

-- CreateIndex
CREATE INDEX "datasets_type_idx" ON "datasets"("type");

-- CreateIndex
CREATE INDEX "datasets_updated_date_idx" ON "datasets"("updated_date");

-- CreateIndex
CREATE INDEX "datasets_denorm_sources_idx" ON "datasets" USING GIN ("denorm_sources");


-- Added by hand: the store refuses combinations the lifecycle never produces.
ALTER TABLE "datasets" ADD CONSTRAINT "datasets_stage_status_check" CHECK (
  ("stage" = 'draft' AND "status" IN ('Draft', 'ReadyToPublish')) OR ("stage" = 'live' AND "status" IN ('Live', 'Retired')));
ALTER TABLE "datasets" ADD CONSTRAINT "datasets_type_check" CHECK ("type" IN ('event', 'master'));
