-- Search across the graph: one row per searchable record (dataset versions, query templates,
-- connector versions, alert rules, notification channels), kept by triggers on the records' own
-- tables, so a row changes in the same transaction as its record and a search never sees a
-- half-written one. `document` (full text, GIN) finds words and word prefixes anywhere in a record;
-- `title` (trigram, GIN) finds any part of a name or id of three characters or more.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE "search_documents" (
    "type" VARCHAR(24) NOT NULL,
    "natural_id" TEXT NOT NULL,
    -- A dataset's stage ('live' or 'draft'); '' for the other types
    "stage" VARCHAR(8) NOT NULL DEFAULT '',
    "doc_id" TEXT GENERATED ALWAYS AS ("type" || ':' || "natural_id" || ':' || "stage") STORED,
    "name" TEXT NOT NULL,
    -- lower(name) and lower(id), for exact and prefix ranking and the trigram index
    "title" TEXT NOT NULL,
    -- Lower-case, snake_case status (draft, ready_to_publish, in_validation, live, retired); null when the type has none
    "status" VARCHAR(24),
    "tags" TEXT[] NOT NULL DEFAULT '{}',
    "fields" TEXT[] NOT NULL DEFAULT '{}',
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    -- Name and id (A), tags (B), field names (C), description (D)
    "title_document" TSVECTOR NOT NULL,
    "document" TSVECTOR NOT NULL,
    CONSTRAINT "search_documents_pkey" PRIMARY KEY ("doc_id")
);

CREATE UNIQUE INDEX "search_documents_record_key" ON "search_documents" ("type", "natural_id", "stage");
-- fastupdate off: a record write updates the indexes at once. With it on, writes go to a pending
-- list that every search scans linearly until (auto)vacuum merges it, which made searches after a
-- bulk load several times slower; writes here are one row per record change, so cheap either way.
CREATE INDEX "search_documents_document_idx" ON "search_documents" USING GIN ("document") WITH (fastupdate = off);
CREATE INDEX "search_documents_title_trgm_idx" ON "search_documents" USING GIN ("title" gin_trgm_ops) WITH (fastupdate = off);
CREATE INDEX "search_documents_tags_idx" ON "search_documents" USING GIN ("tags") WITH (fastupdate = off);

-- Text as the search's words: lower case, every run of characters other than letters and digits a
-- space (the query is split the same way in src/modules/search/query.ts), so no character of a
-- record or a query is ever read as a tsquery operator.
CREATE OR REPLACE FUNCTION search_words(value TEXT) RETURNS TEXT LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT regexp_replace(lower(coalesce(value, '')), '[^[:alnum:]]+', ' ', 'g')
$$;

-- The field paths of a JSON Schema (properties, and the properties of array items), at most 16
-- levels deep and 2,000 paths, dotted: `customer.email`, `lines.sku`.
CREATE OR REPLACE FUNCTION search_schema_fields(schema JSONB) RETURNS TEXT[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  WITH RECURSIVE walk("path", "node", "depth") AS (
    SELECT property.key, property.value, 1
      FROM jsonb_each(CASE WHEN jsonb_typeof(schema -> 'properties') = 'object' THEN schema -> 'properties' ELSE '{}'::jsonb END) AS property
    UNION ALL
    SELECT walk."path" || '.' || child.key, child.value, walk."depth" + 1
      FROM walk,
           jsonb_each(CASE WHEN jsonb_typeof(walk."node" -> 'properties') = 'object' THEN walk."node" -> 'properties'
                           WHEN jsonb_typeof(walk."node" -> 'items' -> 'properties') = 'object' THEN walk."node" -> 'items' -> 'properties'
                           ELSE '{}'::jsonb END) AS child
     WHERE walk."depth" < 16
  )
  SELECT coalesce(array_agg("path"), '{}') FROM (SELECT "path" FROM walk LIMIT 2000) AS paths
$$;

-- A status as the search filters it: ReadyToPublish -> ready_to_publish, Live and live -> live.
CREATE OR REPLACE FUNCTION search_status(value TEXT) RETURNS TEXT LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT lower(regexp_replace(value, '([a-z])([A-Z])', '\1_\2', 'g'))
$$;

-- Writes (or rewrites) one record's search row.
CREATE OR REPLACE FUNCTION search_put(
  p_type TEXT, p_natural_id TEXT, p_stage TEXT, p_name TEXT, p_extra_ids TEXT, p_status TEXT, p_tags TEXT[], p_fields TEXT[], p_description TEXT, p_updated_at TIMESTAMPTZ
) RETURNS VOID LANGUAGE plpgsql AS $$
DECLARE
  v_tags TEXT[] := ARRAY(SELECT DISTINCT lower(tag) FROM unnest(coalesce(p_tags, '{}')) AS tag WHERE tag IS NOT NULL AND tag <> '');
  v_title_document TSVECTOR := setweight(to_tsvector('simple', search_words(p_name) || ' ' || search_words(p_natural_id) || ' ' || search_words(p_extra_ids)), 'A');
BEGIN
  INSERT INTO "search_documents" ("type", "natural_id", "stage", "name", "title", "status", "tags", "fields", "updated_at", "title_document", "document")
  VALUES (
    p_type, p_natural_id, p_stage, p_name, lower(p_name || ' ' || p_natural_id || coalesce(' ' || p_extra_ids, '')), p_status, v_tags, coalesce(p_fields, '{}'), p_updated_at, v_title_document,
    v_title_document
      || setweight(to_tsvector('simple', search_words(array_to_string(v_tags, ' '))), 'B')
      || setweight(to_tsvector('simple', search_words(array_to_string(p_fields, ' '))), 'C')
      || setweight(to_tsvector('simple', search_words(left(p_description, 4000))), 'D'))
  ON CONFLICT ("type", "natural_id", "stage") DO UPDATE SET
    "name" = EXCLUDED."name", "title" = EXCLUDED."title", "status" = EXCLUDED."status", "tags" = EXCLUDED."tags", "fields" = EXCLUDED."fields",
    "updated_at" = EXCLUDED."updated_at", "title_document" = EXCLUDED."title_document", "document" = EXCLUDED."document";
END $$;

-- Each record table's trigger: a deleted record (or the old key of a re-keyed one) leaves the
-- search; an inserted or updated one is written again.
CREATE OR REPLACE FUNCTION search_index_dataset() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' OR (TG_OP = 'UPDATE' AND (OLD."dataset_id", OLD."stage") IS DISTINCT FROM (NEW."dataset_id", NEW."stage")) THEN
    DELETE FROM "search_documents" WHERE "type" = 'Dataset' AND "natural_id" = OLD."dataset_id" AND "stage" = OLD."stage";
  END IF;
  IF TG_OP <> 'DELETE' THEN
    PERFORM search_put('Dataset', NEW."dataset_id", NEW."stage", NEW."name", NEW."alias",
      search_status(NEW."status"),
      NEW."tags" || ARRAY[NEW."type"], search_schema_fields(NEW."data_schema"::jsonb), NULL, NEW."updated_date");
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION search_index_template() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' OR (TG_OP = 'UPDATE' AND OLD."template_id" IS DISTINCT FROM NEW."template_id") THEN
    DELETE FROM "search_documents" WHERE "type" = 'QueryTemplate' AND "natural_id" = OLD."template_id";
  END IF;
  IF TG_OP <> 'DELETE' THEN
    PERFORM search_put('QueryTemplate', NEW."template_id", '', NEW."template_name", NULL, NULL, ARRAY[NEW."query_type"], '{}', NEW."query", NEW."updated_date");
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION search_index_connector() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' OR (TG_OP = 'UPDATE' AND OLD."id" IS DISTINCT FROM NEW."id") THEN
    DELETE FROM "search_documents" WHERE "type" = 'Connector' AND "natural_id" = OLD."id";
  END IF;
  IF TG_OP <> 'DELETE' THEN
    PERFORM search_put('Connector', NEW."id", '', NEW."name", NEW."connector_id",
      search_status(NEW."status"),
      ARRAY[NEW."category", NEW."type", NEW."technology", NEW."runtime"], '{}', NEW."description", NEW."updated_date");
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION search_index_alert_rule() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' OR (TG_OP = 'UPDATE' AND OLD."id" IS DISTINCT FROM NEW."id") THEN
    DELETE FROM "search_documents" WHERE "type" = 'AlertRule' AND "natural_id" = OLD."id"::text;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    PERFORM search_put('AlertRule', NEW."id"::text, '', NEW."name", NULL, search_status(NEW."status"),
      ARRAY[NEW."category", NEW."severity"] || ARRAY(SELECT label.key || '=' || label.value FROM jsonb_each_text(CASE WHEN jsonb_typeof(NEW."labels") = 'object' THEN NEW."labels" ELSE '{}'::jsonb END) AS label),
      '{}', NEW."description" || ' ' || NEW."metric", NEW."updated_date");
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION search_index_channel() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' OR (TG_OP = 'UPDATE' AND OLD."id" IS DISTINCT FROM NEW."id") THEN
    DELETE FROM "search_documents" WHERE "type" = 'NotificationChannel' AND "natural_id" = OLD."id"::text;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    PERFORM search_put('NotificationChannel', NEW."id"::text, '', NEW."name", NULL, search_status(NEW."status"), ARRAY[NEW."type", NEW."manager"], '{}', NULL, NEW."updated_date");
  END IF;
  RETURN NULL;
END $$;

-- A truncated table takes its rows out of the search too.
CREATE OR REPLACE FUNCTION search_forget_type() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "search_documents" WHERE "type" = TG_ARGV[0];
  RETURN NULL;
END $$;

CREATE TRIGGER "datasets_search" AFTER INSERT OR UPDATE OR DELETE ON "datasets" FOR EACH ROW EXECUTE FUNCTION search_index_dataset();
CREATE TRIGGER "datasets_search_truncate" AFTER TRUNCATE ON "datasets" FOR EACH STATEMENT EXECUTE FUNCTION search_forget_type('Dataset');
CREATE TRIGGER "query_templates_search" AFTER INSERT OR UPDATE OR DELETE ON "query_templates" FOR EACH ROW EXECUTE FUNCTION search_index_template();
CREATE TRIGGER "query_templates_search_truncate" AFTER TRUNCATE ON "query_templates" FOR EACH STATEMENT EXECUTE FUNCTION search_forget_type('QueryTemplate');
CREATE TRIGGER "connector_registry_search" AFTER INSERT OR UPDATE OR DELETE ON "connector_registry" FOR EACH ROW EXECUTE FUNCTION search_index_connector();
CREATE TRIGGER "connector_registry_search_truncate" AFTER TRUNCATE ON "connector_registry" FOR EACH STATEMENT EXECUTE FUNCTION search_forget_type('Connector');
CREATE TRIGGER "alert_rules_search" AFTER INSERT OR UPDATE OR DELETE ON "alert_rules" FOR EACH ROW EXECUTE FUNCTION search_index_alert_rule();
CREATE TRIGGER "alert_rules_search_truncate" AFTER TRUNCATE ON "alert_rules" FOR EACH STATEMENT EXECUTE FUNCTION search_forget_type('AlertRule');
CREATE TRIGGER "notification_channels_search" AFTER INSERT OR UPDATE OR DELETE ON "notification_channels" FOR EACH ROW EXECUTE FUNCTION search_index_channel();
CREATE TRIGGER "notification_channels_search_truncate" AFTER TRUNCATE ON "notification_channels" FOR EACH STATEMENT EXECUTE FUNCTION search_forget_type('NotificationChannel');

-- Records written before this migration.
SELECT count(*) FROM (
  SELECT search_put('Dataset', "dataset_id", "stage", "name", "alias", search_status("status"),
                    "tags" || ARRAY["type"], search_schema_fields("data_schema"::jsonb), NULL, "updated_date") FROM "datasets"
  UNION ALL
  SELECT search_put('QueryTemplate', "template_id", '', "template_name", NULL, NULL, ARRAY["query_type"], '{}', "query", "updated_date") FROM "query_templates"
  UNION ALL
  SELECT search_put('Connector', "id", '', "name", "connector_id", search_status("status"),
                    ARRAY["category", "type", "technology", "runtime"], '{}', "description", "updated_date") FROM "connector_registry"
  UNION ALL
  SELECT search_put('AlertRule', "id"::text, '', "name", NULL, search_status("status"),
                    ARRAY["category", "severity"] || ARRAY(SELECT label.key || '=' || label.value FROM jsonb_each_text(CASE WHEN jsonb_typeof("labels") = 'object' THEN "labels" ELSE '{}'::jsonb END) AS label),
                    '{}', "description" || ' ' || "metric", "updated_date") FROM "alert_rules"
  UNION ALL
  SELECT search_put('NotificationChannel', "id"::text, '', "name", NULL, search_status("status"), ARRAY["type", "manager"], '{}', NULL, "updated_date") FROM "notification_channels"
) AS backfill;
