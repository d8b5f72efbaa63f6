-- Alert rules and notification channels are announced as the published records are
-- (20261125000000_change_announcements): a dataset list page that shows each dataset's alert rules
-- and their channels is then kept in the gateways' published cache, and dropped in every gateway
-- when one of those rows changes. Their evaluation state (alert_rule_states) is not announced: it
-- changes at every evaluation, and answers that read it are never kept.
CREATE TRIGGER "alert_rules_announce_change" AFTER INSERT OR UPDATE OR DELETE ON "alert_rules"
  FOR EACH ROW EXECUTE FUNCTION gateway_announce_change('id');
CREATE TRIGGER "alert_rules_announce_truncate" AFTER TRUNCATE ON "alert_rules"
  FOR EACH STATEMENT EXECUTE FUNCTION gateway_announce_truncate();
CREATE TRIGGER "notification_channels_announce_change" AFTER INSERT OR UPDATE OR DELETE ON "notification_channels"
  FOR EACH ROW EXECUTE FUNCTION gateway_announce_change('id');
CREATE TRIGGER "notification_channels_announce_truncate" AFTER TRUNCATE ON "notification_channels"
  FOR EACH STATEMENT EXECUTE FUNCTION gateway_announce_truncate();
