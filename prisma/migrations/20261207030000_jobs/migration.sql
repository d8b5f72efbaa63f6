-- Long work (exports, connector registrations, schema inference from an uploaded file) runs as a
-- job (src/modules/jobs). Its row is the one truth every copy of the gateway answers from: state,
-- progress, result, and who may see it (the API id whose holders could run the work). The copy that
-- runs a job beats its heartbeat; any copy marks a job FAILED once its heartbeat is older than
-- JOB_HEARTBEAT_TIMEOUT_SECONDS (the copy running it died). Each change is announced on
-- gateway_changes as "jobs:<id>" (20261125000000_change_announcements), which feeds jobProgress.
CREATE TABLE "jobs" (
  "id"            UUID         NOT NULL,
  "kind"          VARCHAR(40)  NOT NULL,
  "api_id"        VARCHAR(100) NOT NULL,
  "state"         VARCHAR(16)  NOT NULL DEFAULT 'QUEUED',
  "done"          BIGINT       NOT NULL DEFAULT 0,
  "total"         BIGINT,
  "unit"          VARCHAR(16)  NOT NULL,
  "result"        JSONB,
  "result_key"    TEXT,
  "error_code"    VARCHAR(80),
  "error_message" TEXT,
  "created_by"    TEXT         NOT NULL,
  "instance"      TEXT         NOT NULL,
  "heartbeat_at"  TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "created_at"    TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "updated_at"    TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "finished_at"   TIMESTAMPTZ(3),
  CONSTRAINT "jobs_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "jobs_state_check" CHECK ("state" IN ('QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED'))
);

-- The sweep for jobs whose gateway died reads only unfinished jobs.
CREATE INDEX "jobs_unfinished_heartbeat_idx" ON "jobs" ("heartbeat_at") WHERE "state" IN ('QUEUED', 'RUNNING');

CREATE TRIGGER "jobs_announce_change" AFTER INSERT OR UPDATE ON "jobs"
  FOR EACH ROW EXECUTE FUNCTION gateway_announce_change('id');
