-- Versions of datasets, query templates, alert rules and notification channels: every write of one
-- of their rows keeps the row as it then was (a trigger, in the changing transaction, so no write
-- path can forget to), the `history` field of each type diffs each kept version with the one before.
-- Unlike the change logs (kept CHANGE_LOG_RETENTION_HOURS), versions are kept by number: the newest
-- VERSION_RETENTION of each record (entity_version_settings.retention, which the gateway writes at
-- start-up), the older ones deleted by the same trigger as a new one is written.

-- CreateTable
CREATE TABLE "entity_versions" (
    "id" BIGSERIAL NOT NULL,
    "entity_type" VARCHAR(32) NOT NULL,
    "entity_id" VARCHAR(255) NOT NULL,
    "stage" VARCHAR(8),
    "operation" VARCHAR(16) NOT NULL,
    "actor" VARCHAR(120),
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "snapshot" JSONB NOT NULL,
    "tx" BIGINT NOT NULL DEFAULT txid_current(),

    CONSTRAINT "entity_versions_pkey" PRIMARY KEY ("id")
);

-- A record's versions, newest first (its history's pages, and retention's cut).
CREATE INDEX "entity_versions_entity_idx" ON "entity_versions"("entity_type", "entity_id", "id" DESC);

-- CreateTable
CREATE TABLE "entity_version_settings" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "retention" INTEGER NOT NULL,

    CONSTRAINT "entity_version_settings_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "entity_version_settings_one_row" CHECK ("id" = 1),
    CONSTRAINT "entity_version_settings_retention" CHECK ("retention" >= 1)
);
INSERT INTO "entity_version_settings" ("id", "retention") VALUES (1, 50);

-- TG_ARGV[0]: the entity type (the GraphQL type); TG_ARGV[1]: the column holding its key. A write that
-- changes nothing but who and when is no new version. The actor is the row's created_by (a creation)
-- or updated_by; a deleted row does not say who deleted it, so a deletion's actor is the one of the
-- record's change in the same transaction (a publish replacing the Draft), else unknown (null: the
-- audit trail names who called the deletion). PUBLISHED: a row that is (now) Live, and was not,
-- or was another version (a dataset's publish writes its Live row; a rule's or channel's sets live).
CREATE OR REPLACE FUNCTION gateway_keep_entity_version() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  row_after JSONB := CASE WHEN TG_OP = 'DELETE' THEN NULL ELSE to_jsonb(NEW) END;
  row_before JSONB := CASE WHEN TG_OP = 'INSERT' THEN NULL ELSE to_jsonb(OLD) END;
  present JSONB := COALESCE(row_after, row_before);
  entity_key TEXT := present ->> TG_ARGV[1];
  operation TEXT;
  keep INTEGER;
BEGIN
  IF TG_OP = 'UPDATE' AND (row_after - 'updated_date' - 'updated_by') = (row_before - 'updated_date' - 'updated_by') THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'DELETE' THEN
    operation := 'DELETED';
  ELSIF lower(row_after ->> 'status') = 'live' AND (TG_OP = 'INSERT' OR lower(row_before ->> 'status') IS DISTINCT FROM 'live' OR (row_before -> 'version') IS DISTINCT FROM (row_after -> 'version')) THEN
    operation := 'PUBLISHED';
  ELSIF TG_OP = 'INSERT' THEN
    operation := 'CREATED';
  ELSIF (row_before ->> 'status') IS DISTINCT FROM (row_after ->> 'status') THEN
    operation := 'STATUS_CHANGED';
  ELSE
    operation := 'UPDATED';
  END IF;
  INSERT INTO "entity_versions" ("entity_type", "entity_id", "stage", "operation", "actor", "at", "snapshot")
    VALUES (TG_ARGV[0], entity_key, present ->> 'stage', operation,
            CASE TG_OP
              WHEN 'INSERT' THEN present ->> 'created_by'
              WHEN 'UPDATE' THEN present ->> 'updated_by'
              ELSE (SELECT v."actor" FROM "entity_versions" v WHERE v."entity_type" = TG_ARGV[0] AND v."entity_id" = entity_key AND v."tx" = txid_current() ORDER BY v."id" DESC LIMIT 1)
            END,
            clock_timestamp(), present);
  SELECT "retention" INTO keep FROM "entity_version_settings" WHERE "id" = 1;
  DELETE FROM "entity_versions"
   WHERE "entity_type" = TG_ARGV[0] AND "entity_id" = entity_key
     AND "id" <= (SELECT v."id" FROM "entity_versions" v WHERE v."entity_type" = TG_ARGV[0] AND v."entity_id" = entity_key ORDER BY v."id" DESC OFFSET COALESCE(keep, 50) LIMIT 1);
  RETURN NULL;
END
$$;

CREATE TRIGGER "datasets_keep_version" AFTER INSERT OR UPDATE OR DELETE ON "datasets"
  FOR EACH ROW EXECUTE FUNCTION gateway_keep_entity_version('Dataset', 'dataset_id');
CREATE TRIGGER "query_templates_keep_version" AFTER INSERT OR UPDATE OR DELETE ON "query_templates"
  FOR EACH ROW EXECUTE FUNCTION gateway_keep_entity_version('QueryTemplate', 'template_id');
CREATE TRIGGER "alert_rules_keep_version" AFTER INSERT OR UPDATE OR DELETE ON "alert_rules"
  FOR EACH ROW EXECUTE FUNCTION gateway_keep_entity_version('AlertRule', 'id');
CREATE TRIGGER "notification_channels_keep_version" AFTER INSERT OR UPDATE OR DELETE ON "notification_channels"
  FOR EACH ROW EXECUTE FUNCTION gateway_keep_entity_version('NotificationChannel', 'id');
