-- Dataset.alertRulePage (src/modules/alert-rules/list.ts, ruleDatasetLink): the dataset a rule is
-- about, as an expression index, so each dataset's page of rules is found without reading the table.
-- The expression must stay the one the link declares, character for character in meaning.
CREATE INDEX "alert_rules_dataset_idx" ON "alert_rules"((COALESCE(NULLIF(labels->>'dataset', ''), CASE WHEN jsonb_typeof(context->'datasetId') = 'string' THEN NULLIF(context->>'datasetId', '') END)));
