-- The list contract (src/platform/lists): every field a list's `where`, `orderBy` or `groupBy` may
-- name is read through an index, so a filter or an order never reads a whole table. Text fields
-- that take `contains`/`startsWith` (ILIKE) are served by trigram indexes.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- query_templates: template_name (unique), created_date and updated_date already have theirs.
CREATE INDEX "query_templates_query_type_idx" ON "query_templates"("query_type");
CREATE INDEX "query_templates_created_by_idx" ON "query_templates"("created_by");
CREATE INDEX "query_templates_template_name_trgm_idx" ON "query_templates" USING GIN ("template_name" gin_trgm_ops);
