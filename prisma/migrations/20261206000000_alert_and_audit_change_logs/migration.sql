-- Two more change logs, made as the change log of datasets is (20261205000000_dataset_change_log):
-- a trigger writes one row per change in the changing transaction, after a transaction-scoped
-- advisory lock of its own log, so each log's ids are handed out in commit order (a reader's
-- "id > cursor" never skips a row committed later with a smaller id). Each log has its own lock key:
-- writers of one log never wait for writers of another. Each trigger also announces the new row on
-- gateway_changes ("<log>:*", one per transaction: PostgreSQL folds equal notifications), delivered
-- at commit to every copy, whose shared tail reader of that log then reads it once.
-- Subscription.alertStateChanges reads alert_state_changes; Subscription.auditStream reads
-- audit_stream. Retention (CHANGE_LOG_RETENTION_HOURS) and its horizon are the same as for datasets.

-- CreateTable
CREATE TABLE "alert_state_changes" (
    "id" BIGSERIAL NOT NULL,
    "rule_id" UUID NOT NULL,
    "rule_name" VARCHAR(200),
    "kind" VARCHAR(16) NOT NULL,
    "status_before" VARCHAR(16),
    "status_after" VARCHAR(16),
    "state_before" VARCHAR(16),
    "state_after" VARCHAR(16),
    "value" DOUBLE PRECISION,
    "actor" VARCHAR(120),
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "alert_state_changes_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "alert_state_changes_at_idx" ON "alert_state_changes"("at");

-- CreateTable
CREATE TABLE "audit_stream" (
    "id" BIGSERIAL NOT NULL,
    "audit_record_id" BIGINT NOT NULL,
    "record_at" TIMESTAMPTZ(3) NOT NULL,
    "request_id" VARCHAR(128) NOT NULL,
    "actor" VARCHAR(120) NOT NULL,
    "transport" VARCHAR(8) NOT NULL,
    "api_id" VARCHAR(120),
    "operation" VARCHAR(120) NOT NULL,
    "target_id" VARCHAR(255),
    "outcome" VARCHAR(8) NOT NULL,
    "error_code" VARCHAR(64),
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "audit_stream_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "audit_stream_at_idx" ON "audit_stream"("at");

-- A rule's lifecycle: its creation, each change of its status (draft, live, retired) and its
-- deletion. Edits that leave the status as it was are not state changes.
CREATE OR REPLACE FUNCTION gateway_log_alert_rule_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(7305182431004658);
  IF TG_OP = 'INSERT' THEN
    INSERT INTO "alert_state_changes" ("rule_id", "rule_name", "kind", "status_after", "actor", "at")
      VALUES (NEW."id", NEW."name", 'CREATED', NEW."status", NEW."created_by", clock_timestamp());
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO "alert_state_changes" ("rule_id", "rule_name", "kind", "status_before", "status_after", "actor", "at")
      VALUES (NEW."id", NEW."name", 'STATUS_CHANGED', OLD."status", NEW."status", NEW."updated_by", clock_timestamp());
  ELSE
    INSERT INTO "alert_state_changes" ("rule_id", "rule_name", "kind", "status_before", "actor", "at")
      VALUES (OLD."id", OLD."name", 'DELETED', OLD."status", OLD."updated_by", clock_timestamp());
  END IF;
  PERFORM pg_notify('gateway_changes', 'alert_state_changes:*');
  RETURN NULL;
END
$$;

-- A rule's evaluated state: each change the evaluator (or any writer) makes to it. A state row is
-- made at 'inactive' when a rule goes Live and dropped when it stops being evaluated: the first is
-- no change of state, the second is one only when the rule was pending or firing (it stops so).
-- The evaluator's transitions have no actor (no person decided them).
CREATE OR REPLACE FUNCTION gateway_log_alert_state_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  name VARCHAR(200);
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NEW."state" = 'inactive' THEN RETURN NULL; END IF;
  ELSIF TG_OP = 'UPDATE' THEN
    IF OLD."state" IS NOT DISTINCT FROM NEW."state" THEN RETURN NULL; END IF;
  ELSIF OLD."state" = 'inactive' THEN
    RETURN NULL;
  END IF;
  PERFORM pg_advisory_xact_lock(7305182431004658);
  SELECT r."name" INTO name FROM "alert_rules" r WHERE r."id" = COALESCE(NEW."rule_id", OLD."rule_id");
  INSERT INTO "alert_state_changes" ("rule_id", "rule_name", "kind", "state_before", "state_after", "value", "at")
    VALUES (
      COALESCE(NEW."rule_id", OLD."rule_id"), name, 'STATE_CHANGED',
      CASE WHEN TG_OP = 'INSERT' THEN NULL ELSE OLD."state" END,
      CASE WHEN TG_OP = 'DELETE' THEN NULL ELSE NEW."state" END,
      CASE WHEN TG_OP = 'DELETE' THEN NULL ELSE NEW."last_value" END,
      clock_timestamp());
  PERFORM pg_notify('gateway_changes', 'alert_state_changes:*');
  RETURN NULL;
END
$$;

CREATE TRIGGER "alert_rules_log_change" AFTER INSERT OR DELETE ON "alert_rules"
  FOR EACH ROW EXECUTE FUNCTION gateway_log_alert_rule_change();
CREATE TRIGGER "alert_rules_log_status_change" AFTER UPDATE OF "status" ON "alert_rules"
  FOR EACH ROW WHEN (OLD."status" IS DISTINCT FROM NEW."status") EXECUTE FUNCTION gateway_log_alert_rule_change();
CREATE TRIGGER "alert_rule_states_log_change" AFTER INSERT OR UPDATE OF "state" OR DELETE ON "alert_rule_states"
  FOR EACH ROW EXECUTE FUNCTION gateway_log_alert_state_change();

-- Every audit record as it is written (the trail writes one per audited mutation, its own statement).
-- The record itself is copied: the stream does not depend on how long the trail is kept.
CREATE OR REPLACE FUNCTION gateway_log_audit_record() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(7305182431004659);
  INSERT INTO "audit_stream" ("audit_record_id", "record_at", "request_id", "actor", "transport", "api_id", "operation", "target_id", "outcome", "error_code", "at")
    VALUES (NEW."id", NEW."at", NEW."request_id", NEW."actor", NEW."transport", NEW."api_id", NEW."operation", NEW."target_id", NEW."outcome", NEW."error_code", clock_timestamp());
  PERFORM pg_notify('gateway_changes', 'audit_stream:*');
  RETURN NULL;
END
$$;

CREATE TRIGGER "audit_records_log_stream" AFTER INSERT ON "audit_records"
  FOR EACH ROW EXECUTE FUNCTION gateway_log_audit_record();
