-- The audit trail's list contract (src/modules/audit/list.ts): every field its `where` or `groupBy`
-- may name is read through an index. at, actor, operation and target_id already have theirs; the
-- order by id is the primary key's.
CREATE INDEX "audit_records_api_id_idx" ON "audit_records"("api_id");
CREATE INDEX "audit_records_transport_idx" ON "audit_records"("transport");
CREATE INDEX "audit_records_outcome_idx" ON "audit_records"("outcome");
CREATE INDEX "audit_records_error_code_idx" ON "audit_records"("error_code");
CREATE INDEX "audit_records_request_id_idx" ON "audit_records"("request_id");
