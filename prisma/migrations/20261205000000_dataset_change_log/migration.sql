-- The change log of datasets: one row per change of a dataset row (either stage), written by a
-- trigger in the changing transaction, so a change is logged exactly when it commits and no write
-- path can forget to. Subscription.datasetChanges replays it from a cursor (the row's id) and then
-- tails it; rows older than CHANGE_LOG_RETENTION_HOURS are deleted by the gateway's background work.
-- CreateTable
CREATE TABLE "dataset_changes" (
    "id" BIGSERIAL NOT NULL,
    "dataset_id" VARCHAR(200) NOT NULL,
    "stage" VARCHAR(8) NOT NULL,
    "kind" VARCHAR(16) NOT NULL,
    "status_before" VARCHAR(16),
    "status_after" VARCHAR(16),
    "version" INTEGER,
    "actor" VARCHAR(120),
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "dataset_changes_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "dataset_changes_at_idx" ON "dataset_changes"("at");

-- How far each change log's retention has deleted: a cursor below deleted_through may have missed
-- changes (CHANGE_CURSOR_EXPIRED); one at or above it has not, whatever gaps rolled-back writes left.
-- CreateTable
CREATE TABLE "change_log_horizons" (
    "log" VARCHAR(40) NOT NULL,
    "deleted_through" BIGINT NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "change_log_horizons_pkey" PRIMARY KEY ("log")
);

-- Readers take rows with id > their cursor and trust that no row with a smaller id commits later.
-- A sequence alone does not promise that (two transactions take ids in one order and commit in the
-- other), so the trigger first takes a transaction-scoped advisory lock, held until commit: writers
-- of datasets log one after the other, and ids are handed out in commit order. Dataset writes are
-- rare (an operator's edits and status transitions), so serialising their last step costs nothing
-- that matters. The key is fixed (any number no other lock of the gateway uses). `at` is the
-- moment of the change (clock_timestamp), not the transaction's start.
CREATE OR REPLACE FUNCTION gateway_log_dataset_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  others INTEGER;
BEGIN
  PERFORM pg_advisory_xact_lock(7305182431004657);
  IF TG_OP = 'INSERT' THEN
    -- A dataset's first row is its creation; a second stage of an existing dataset (a Draft of a
    -- Live, or the Live a publish writes) is a change of that dataset.
    SELECT count(*) INTO others FROM "datasets" WHERE "dataset_id" = NEW."dataset_id" AND "stage" <> NEW."stage";
    INSERT INTO "dataset_changes" ("dataset_id", "stage", "kind", "status_before", "status_after", "version", "actor", "at")
      VALUES (NEW."dataset_id", NEW."stage", CASE WHEN others = 0 THEN 'CREATED' ELSE 'UPDATED' END, NULL, NEW."status", NEW."version", COALESCE(NEW."created_by", NEW."updated_by"), clock_timestamp());
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO "dataset_changes" ("dataset_id", "stage", "kind", "status_before", "status_after", "version", "actor", "at")
      VALUES (NEW."dataset_id", NEW."stage", CASE WHEN OLD."status" IS DISTINCT FROM NEW."status" THEN 'STATUS_CHANGED' ELSE 'UPDATED' END, OLD."status", NEW."status", NEW."version", NEW."updated_by", clock_timestamp());
  ELSE
    -- Removing one stage while the other stays (a Draft discarded, a Live replaced) changes the dataset; the last one deletes it.
    SELECT count(*) INTO others FROM "datasets" WHERE "dataset_id" = OLD."dataset_id";
    INSERT INTO "dataset_changes" ("dataset_id", "stage", "kind", "status_before", "status_after", "version", "actor", "at")
      VALUES (OLD."dataset_id", OLD."stage", CASE WHEN others = 0 THEN 'DELETED' ELSE 'UPDATED' END, OLD."status", NULL, OLD."version", OLD."updated_by", clock_timestamp());
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "datasets_log_change" AFTER INSERT OR UPDATE OR DELETE ON "datasets"
  FOR EACH ROW EXECUTE FUNCTION gateway_log_dataset_change();
