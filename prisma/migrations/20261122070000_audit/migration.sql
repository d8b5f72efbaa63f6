-- CreateTable
CREATE TABLE "audit_records" (
    "id" BIGSERIAL NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "request_id" VARCHAR(128) NOT NULL,
    "actor" VARCHAR(120) NOT NULL,
    "transport" VARCHAR(8) NOT NULL,
    "api_id" VARCHAR(120),
    "operation" VARCHAR(120) NOT NULL,
    "target_id" VARCHAR(255),
    "outcome" VARCHAR(8) NOT NULL,
    "error_code" VARCHAR(64),

    CONSTRAINT "audit_records_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "audit_records_at_idx" ON "audit_records"("at");

-- CreateIndex
CREATE INDEX "audit_records_actor_idx" ON "audit_records"("actor");

-- CreateIndex
CREATE INDEX "audit_records_operation_idx" ON "audit_records"("operation");

-- CreateIndex
CREATE INDEX "audit_records_target_id_idx" ON "audit_records"("target_id");

-- Added by hand: the store refuses what the audit trail would never write.
ALTER TABLE "audit_records" ADD CONSTRAINT "audit_records_transport_check" CHECK ("transport" IN ('graphql', 'rest'));
ALTER TABLE "audit_records" ADD CONSTRAINT "audit_records_outcome_check" CHECK ("outcome" IN ('success', 'failure'));
