-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "query_templates" (
    "template_id" VARCHAR(120) NOT NULL,
    "template_name" VARCHAR(120) NOT NULL,
    "query" TEXT NOT NULL,
    "query_type" VARCHAR(8) NOT NULL,
    "created_by" VARCHAR(120) NOT NULL,
    "updated_by" VARCHAR(120) NOT NULL,
    "created_date" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_date" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "query_templates_pkey" PRIMARY KEY ("template_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "query_templates_template_name_key" ON "query_templates"("template_name");

-- CreateIndex
CREATE INDEX "query_templates_created_date_idx" ON "query_templates"("created_date");

-- CreateIndex
CREATE INDEX "query_templates_updated_date_idx" ON "query_templates"("updated_date");


-- Added by hand: the store refuses what the service would never write.
ALTER TABLE "query_templates" ADD CONSTRAINT "query_templates_query_type_check" CHECK ("query_type" IN ('sql', 'json'));
