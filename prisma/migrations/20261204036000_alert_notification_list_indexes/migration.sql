-- AlertRule.notificationPage (src/modules/alert-rules/list.ts, notificationList): every field its
-- `where`, `orderBy` or `groupBy` may name is read through an index; outcome already has one. A rule's
-- notifications, newest first, come from (rule_id, created_date) without sorting them all.
CREATE INDEX "alert_notifications_rule_id_created_date_idx" ON "alert_notifications"("rule_id", "created_date");
CREATE INDEX "alert_notifications_created_date_idx" ON "alert_notifications"("created_date");
CREATE INDEX "alert_notifications_evaluated_at_idx" ON "alert_notifications"("evaluated_at");
CREATE INDEX "alert_notifications_channel_id_idx" ON "alert_notifications"("channel_id");
CREATE INDEX "alert_notifications_kind_idx" ON "alert_notifications"("kind");
CREATE INDEX "alert_notifications_transport_idx" ON "alert_notifications"("transport");
