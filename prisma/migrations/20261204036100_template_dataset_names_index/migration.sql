-- Dataset.templatePage (src/modules/templates/list.ts, templateDatasetLink): the names a template's
-- query holds, as an array with a GIN index, so a dataset's templates are found by `@>` without
-- reading the table. The expression must stay the one the link declares, character for character in meaning.
CREATE INDEX "query_templates_query_names_idx" ON "query_templates" USING GIN ((regexp_split_to_array(regexp_replace(query, '\{\{[A-Za-z]+\}\}', ' ', 'g'), '[^A-Za-z0-9_.-]+')));
