-- Search as a list of the contract (issue 49): facets and filters on owner and severity, matched
-- fields (the description is kept as text to show where a word matched), and typo tolerance.
-- Additive: three columns, one table, the trigger functions rewritten to fill them.
ALTER TABLE "search_documents" ADD COLUMN "owner" TEXT;
-- An alert rule's severity (info, warning, critical); null for the types that have none.
ALTER TABLE "search_documents" ADD COLUMN "severity" VARCHAR(16);
-- The text the description weight (D) of `document` was made from (at most 4,000 characters).
ALTER TABLE "search_documents" ADD COLUMN "description" TEXT;

-- Every word the search has indexed (four to 40 characters, with a letter), with a trigram index:
-- a query word that is no word of any record is matched against it by similarity, and the similar
-- words join the search ("paymnets" also looks for "payments"), as PostgreSQL's pg_trgm guide
-- suggests for spelling correction. Words are added as records are written and never removed: a
-- word no record holds any more adds an alternative that matches nothing.
CREATE TABLE "search_lexicon" (
    -- C collation: byte order, so "the words starting with w" is a range of the primary key.
    "word" TEXT COLLATE "C" NOT NULL,
    CONSTRAINT "search_lexicon_pkey" PRIMARY KEY ("word")
);
CREATE INDEX "search_lexicon_word_trgm_idx" ON "search_lexicon" USING GIN ("word" gin_trgm_ops) WITH (fastupdate = off);

-- Writes (or rewrites) one record's search row, and adds its words to the lexicon.
CREATE OR REPLACE FUNCTION search_put(
  p_type TEXT, p_natural_id TEXT, p_stage TEXT, p_name TEXT, p_extra_ids TEXT, p_status TEXT, p_tags TEXT[], p_fields TEXT[], p_description TEXT, p_updated_at TIMESTAMPTZ,
  p_owner TEXT, p_severity TEXT
) RETURNS VOID LANGUAGE plpgsql AS $$
DECLARE
  v_tags TEXT[] := ARRAY(SELECT DISTINCT lower(tag) FROM unnest(coalesce(p_tags, '{}')) AS tag WHERE tag IS NOT NULL AND tag <> '');
  v_description TEXT := nullif(left(p_description, 4000), '');
  v_title_document TSVECTOR := setweight(to_tsvector('simple', search_words(p_name) || ' ' || search_words(p_natural_id) || ' ' || search_words(p_extra_ids)), 'A');
  v_document TSVECTOR := v_title_document
      || setweight(to_tsvector('simple', search_words(array_to_string(v_tags, ' '))), 'B')
      || setweight(to_tsvector('simple', search_words(array_to_string(p_fields, ' '))), 'C')
      || setweight(to_tsvector('simple', search_words(v_description)), 'D');
BEGIN
  INSERT INTO "search_documents" ("type", "natural_id", "stage", "name", "title", "status", "tags", "fields", "updated_at", "title_document", "document", "owner", "severity", "description")
  VALUES (
    p_type, p_natural_id, p_stage, p_name, lower(p_name || ' ' || p_natural_id || coalesce(' ' || p_extra_ids, '')), p_status, v_tags, coalesce(p_fields, '{}'), p_updated_at,
    v_title_document, v_document, p_owner, lower(p_severity), v_description)
  ON CONFLICT ("type", "natural_id", "stage") DO UPDATE SET
    "name" = EXCLUDED."name", "title" = EXCLUDED."title", "status" = EXCLUDED."status", "tags" = EXCLUDED."tags", "fields" = EXCLUDED."fields",
    "updated_at" = EXCLUDED."updated_at", "title_document" = EXCLUDED."title_document", "document" = EXCLUDED."document",
    "owner" = EXCLUDED."owner", "severity" = EXCLUDED."severity", "description" = EXCLUDED."description";
  INSERT INTO "search_lexicon" ("word")
  SELECT word FROM unnest(tsvector_to_array(v_document)) AS word
   WHERE length(word) BETWEEN 4 AND 40 AND word ~ '[[:alpha:]]'
  ON CONFLICT DO NOTHING;
END $$;

CREATE OR REPLACE FUNCTION search_index_dataset() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' OR (TG_OP = 'UPDATE' AND (OLD."dataset_id", OLD."stage") IS DISTINCT FROM (NEW."dataset_id", NEW."stage")) THEN
    DELETE FROM "search_documents" WHERE "type" = 'Dataset' AND "natural_id" = OLD."dataset_id" AND "stage" = OLD."stage";
  END IF;
  IF TG_OP <> 'DELETE' THEN
    PERFORM search_put('Dataset', NEW."dataset_id", NEW."stage", NEW."name", NEW."alias",
      search_status(NEW."status"),
      NEW."tags" || ARRAY[NEW."type"], search_schema_fields(NEW."data_schema"::jsonb), NULL, NEW."updated_date", NEW."created_by", NULL);
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION search_index_template() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' OR (TG_OP = 'UPDATE' AND OLD."template_id" IS DISTINCT FROM NEW."template_id") THEN
    DELETE FROM "search_documents" WHERE "type" = 'QueryTemplate' AND "natural_id" = OLD."template_id";
  END IF;
  IF TG_OP <> 'DELETE' THEN
    PERFORM search_put('QueryTemplate', NEW."template_id", '', NEW."template_name", NULL, NULL, ARRAY[NEW."query_type"], '{}', NEW."query", NEW."updated_date", NEW."created_by", NULL);
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
      ARRAY[NEW."category", NEW."type", NEW."technology", NEW."runtime"], '{}', NEW."description", NEW."updated_date", NEW."created_by", NULL);
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
      '{}', NEW."description" || ' ' || NEW."metric", NEW."updated_date", NEW."created_by", NEW."severity");
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION search_index_channel() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' OR (TG_OP = 'UPDATE' AND OLD."id" IS DISTINCT FROM NEW."id") THEN
    DELETE FROM "search_documents" WHERE "type" = 'NotificationChannel' AND "natural_id" = OLD."id"::text;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    PERFORM search_put('NotificationChannel', NEW."id"::text, '', NEW."name", NULL, search_status(NEW."status"), ARRAY[NEW."type", NEW."manager"], '{}', NULL, NEW."updated_date", NEW."created_by", NULL);
  END IF;
  RETURN NULL;
END $$;

-- The ten-argument writer is called by nothing any more.
DROP FUNCTION search_put(TEXT, TEXT, TEXT, TEXT, TEXT, TEXT, TEXT[], TEXT[], TEXT, TIMESTAMPTZ);

-- Records written before this migration: their rows again, with the new columns and words.
SELECT count(*) FROM (
  SELECT search_put('Dataset', "dataset_id", "stage", "name", "alias", search_status("status"),
                    "tags" || ARRAY["type"], search_schema_fields("data_schema"::jsonb), NULL, "updated_date", "created_by", NULL) FROM "datasets"
  UNION ALL
  SELECT search_put('QueryTemplate', "template_id", '', "template_name", NULL, NULL, ARRAY["query_type"], '{}', "query", "updated_date", "created_by", NULL) FROM "query_templates"
  UNION ALL
  SELECT search_put('Connector', "id", '', "name", "connector_id", search_status("status"),
                    ARRAY["category", "type", "technology", "runtime"], '{}', "description", "updated_date", "created_by", NULL) FROM "connector_registry"
  UNION ALL
  SELECT search_put('AlertRule', "id"::text, '', "name", NULL, search_status("status"),
                    ARRAY["category", "severity"] || ARRAY(SELECT label.key || '=' || label.value FROM jsonb_each_text(CASE WHEN jsonb_typeof("labels") = 'object' THEN "labels" ELSE '{}'::jsonb END) AS label),
                    '{}', "description" || ' ' || "metric", "updated_date", "created_by", "severity") FROM "alert_rules"
  UNION ALL
  SELECT search_put('NotificationChannel', "id"::text, '', "name", NULL, search_status("status"), ARRAY["type", "manager"], '{}', NULL, "updated_date", "created_by", NULL) FROM "notification_channels"
) AS backfill;
