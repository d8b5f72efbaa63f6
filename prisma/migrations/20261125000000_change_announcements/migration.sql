-- Gateways keep published records (datasets, templates, connectors) in memory. Every change to
-- those tables is announced on channel gateway_changes, payload "<table>:<key>", which PostgreSQL
-- delivers when the changing transaction commits; each gateway then drops what it holds of that
-- record. A trigger, not the application, announces it, so no write path can forget to.
CREATE OR REPLACE FUNCTION gateway_announce_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    PERFORM pg_notify('gateway_changes', TG_TABLE_NAME || ':' || (to_jsonb(OLD) ->> TG_ARGV[0]));
  END IF;
  IF TG_OP <> 'DELETE' THEN
    PERFORM pg_notify('gateway_changes', TG_TABLE_NAME || ':' || (to_jsonb(NEW) ->> TG_ARGV[0]));
  END IF;
  RETURN NULL;
END
$$;

-- A TRUNCATE changes every record of the table at once: "<table>:*".
CREATE OR REPLACE FUNCTION gateway_announce_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('gateway_changes', TG_TABLE_NAME || ':*');
  RETURN NULL;
END
$$;

CREATE TRIGGER "datasets_announce_change" AFTER INSERT OR UPDATE OR DELETE ON "datasets"
  FOR EACH ROW EXECUTE FUNCTION gateway_announce_change('dataset_id');
CREATE TRIGGER "datasets_announce_truncate" AFTER TRUNCATE ON "datasets"
  FOR EACH STATEMENT EXECUTE FUNCTION gateway_announce_truncate();
CREATE TRIGGER "query_templates_announce_change" AFTER INSERT OR UPDATE OR DELETE ON "query_templates"
  FOR EACH ROW EXECUTE FUNCTION gateway_announce_change('template_id');
CREATE TRIGGER "query_templates_announce_truncate" AFTER TRUNCATE ON "query_templates"
  FOR EACH STATEMENT EXECUTE FUNCTION gateway_announce_truncate();
CREATE TRIGGER "connector_registry_announce_change" AFTER INSERT OR UPDATE OR DELETE ON "connector_registry"
  FOR EACH ROW EXECUTE FUNCTION gateway_announce_change('id');
CREATE TRIGGER "connector_registry_announce_truncate" AFTER TRUNCATE ON "connector_registry"
  FOR EACH STATEMENT EXECUTE FUNCTION gateway_announce_truncate();
