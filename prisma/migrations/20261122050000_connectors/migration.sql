-- CreateTable
CREATE TABLE "connector_registry" (
    "id" VARCHAR(200) NOT NULL,
    "connector_id" VARCHAR(150) NOT NULL,
    "name" VARCHAR(200) NOT NULL,
    "type" VARCHAR(32) NOT NULL,
    "category" VARCHAR(32) NOT NULL,
    "version" VARCHAR(48) NOT NULL,
    "description" TEXT,
    "technology" VARCHAR(64) NOT NULL,
    "runtime" VARCHAR(64) NOT NULL,
    "licence" VARCHAR(120),
    "owner" VARCHAR(200),
    "iconurl" TEXT,
    "status" VARCHAR(16) NOT NULL,
    "ui_spec" JSON NOT NULL,
    "source_url" TEXT,
    "source" JSON,
    "created_by" VARCHAR(120) NOT NULL,
    "updated_by" VARCHAR(120) NOT NULL,
    "created_date" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_date" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "live_date" TIMESTAMPTZ(3),

    CONSTRAINT "connector_registry_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "connector_registry_connector_id_version_key" ON "connector_registry"("connector_id", "version");

-- CreateIndex
CREATE INDEX "connector_registry_status_idx" ON "connector_registry"("status");

-- CreateIndex
CREATE INDEX "connector_registry_category_idx" ON "connector_registry"("category");


-- Added by hand: the store refuses what the registry never writes, and keeps one Live version per
-- connector even if two registrations race (the service also serialises them with a lock).
ALTER TABLE "connector_registry" ADD CONSTRAINT "connector_registry_status_check" CHECK ("status" IN ('Draft', 'InValidation', 'Live', 'Retired'));
ALTER TABLE "connector_registry" ADD CONSTRAINT "connector_registry_category_check" CHECK ("category" IN ('Database', 'File', 'Stream'));
CREATE UNIQUE INDEX "connector_registry_one_live_version" ON "connector_registry"("connector_id") WHERE "status" = 'Live';
