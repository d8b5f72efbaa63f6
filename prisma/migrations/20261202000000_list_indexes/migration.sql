-- The list contract (src/platform/lists): every field a list's `where`, `orderBy` or `groupBy` may
-- name is read through an index, so a filter or an order never reads a whole table. Text fields
-- that take `contains`/`startsWith` (ILIKE) are served by trigram indexes.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- query_templates: template_name (unique), created_date and updated_date already have theirs.
CREATE INDEX "query_templates_query_type_idx" ON "query_templates"("query_type");
CREATE INDEX "query_templates_created_by_idx" ON "query_templates"("created_by");
CREATE INDEX "query_templates_template_name_trgm_idx" ON "query_templates" USING GIN ("template_name" gin_trgm_ops);

-- datasets: status, type, alias and updated_date already have theirs; the default order is
-- (stage, updated_date), published versions first.
CREATE INDEX "datasets_stage_updated_date_idx" ON "datasets"("stage", "updated_date");
CREATE INDEX "datasets_created_date_idx" ON "datasets"("created_date");
CREATE INDEX "datasets_name_idx" ON "datasets"("name");
CREATE INDEX "datasets_name_trgm_idx" ON "datasets" USING GIN ("name" gin_trgm_ops);

-- connector_registry: status and category already have theirs.
CREATE INDEX "connector_registry_name_idx" ON "connector_registry"("name");
CREATE INDEX "connector_registry_name_trgm_idx" ON "connector_registry" USING GIN ("name" gin_trgm_ops);
CREATE INDEX "connector_registry_connector_id_idx" ON "connector_registry"("connector_id");
CREATE INDEX "connector_registry_technology_idx" ON "connector_registry"("technology");
CREATE INDEX "connector_registry_created_date_idx" ON "connector_registry"("created_date");
CREATE INDEX "connector_registry_updated_date_idx" ON "connector_registry"("updated_date");

-- alert_rules: name (unique) and status already have theirs. The alertType index is on an
-- expression, which schema.prisma cannot state.
CREATE INDEX "alert_rules_name_trgm_idx" ON "alert_rules" USING GIN ("name" gin_trgm_ops);
CREATE INDEX "alert_rules_severity_idx" ON "alert_rules"("severity");
CREATE INDEX "alert_rules_category_idx" ON "alert_rules"("category");
CREATE INDEX "alert_rules_manager_idx" ON "alert_rules"("manager");
CREATE INDEX "alert_rules_alert_type_idx" ON "alert_rules"((context->>'alertType'));
CREATE INDEX "alert_rules_created_date_idx" ON "alert_rules"("created_date");
CREATE INDEX "alert_rules_updated_date_idx" ON "alert_rules"("updated_date");

-- alert_silences: alert_id (unique) and end_time already have theirs.
CREATE INDEX "alert_silences_manager_idx" ON "alert_silences"("manager");
CREATE INDEX "alert_silences_start_time_idx" ON "alert_silences"("start_time");
CREATE INDEX "alert_silences_created_date_idx" ON "alert_silences"("created_date");

-- metric_aliases: alias (unique) and component already have theirs.
CREATE INDEX "metric_aliases_alias_trgm_idx" ON "metric_aliases" USING GIN ("alias" gin_trgm_ops);
CREATE INDEX "metric_aliases_sub_component_idx" ON "metric_aliases"("sub_component");
CREATE INDEX "metric_aliases_created_date_idx" ON "metric_aliases"("created_date");
CREATE INDEX "metric_aliases_updated_date_idx" ON "metric_aliases"("updated_date");

-- notification_channels: name (unique), manager and status already have theirs.
CREATE INDEX "notification_channels_name_trgm_idx" ON "notification_channels" USING GIN ("name" gin_trgm_ops);
CREATE INDEX "notification_channels_type_idx" ON "notification_channels"("type");
CREATE INDEX "notification_channels_created_date_idx" ON "notification_channels"("created_date");
CREATE INDEX "notification_channels_updated_date_idx" ON "notification_channels"("updated_date");
