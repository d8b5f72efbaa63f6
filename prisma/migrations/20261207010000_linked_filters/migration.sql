-- Filters of the list contract that reach further (issue 49): a dataset's tags (a GIN index answers
-- "holds this tag" and "holds one of these"), a connector's type, and `startsWith` of 1 or 2
-- characters, which the trigram indexes cannot answer (such a pattern holds no trigram, so the index
-- would hand back every row): a lower-case text pattern index on each text field of a list answers
-- `lower(column) LIKE 'ab%'` at any length.
CREATE INDEX "datasets_tags_idx" ON "datasets" USING GIN ("tags");
CREATE INDEX "connector_registry_type_idx" ON "connector_registry" ("type");
CREATE INDEX "query_templates_template_name_lower_idx" ON "query_templates" (lower("template_name") text_pattern_ops);
CREATE INDEX "datasets_name_lower_idx" ON "datasets" (lower("name") text_pattern_ops);
CREATE INDEX "alert_rules_name_lower_idx" ON "alert_rules" (lower("name") text_pattern_ops);
CREATE INDEX "connector_registry_name_lower_idx" ON "connector_registry" (lower("name") text_pattern_ops);
CREATE INDEX "metric_aliases_alias_lower_idx" ON "metric_aliases" (lower("alias") text_pattern_ops);
CREATE INDEX "notification_channels_name_lower_idx" ON "notification_channels" (lower("name") text_pattern_ops);
