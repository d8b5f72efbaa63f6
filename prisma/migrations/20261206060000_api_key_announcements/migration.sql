-- Gateways keep verified API keys in memory (src/auth/api-keys.ts) until the key expires. Revoking,
-- changing or deleting a key is announced as the published records are
-- (20261125000000_change_announcements), payload "api_keys:<id>" (the row's id, never anything
-- derived from the key), so every gateway drops it when the change commits: a revoked key is
-- refused at once, not after a cache's time-out. A new key needs no announcement: nothing is kept
-- of a key that was not found.
CREATE TRIGGER "api_keys_announce_change" AFTER UPDATE OR DELETE ON "api_keys"
  FOR EACH ROW EXECUTE FUNCTION gateway_announce_change('id');
CREATE TRIGGER "api_keys_announce_truncate" AFTER TRUNCATE ON "api_keys"
  FOR EACH STATEMENT EXECUTE FUNCTION gateway_announce_truncate();
