-- PgBouncer drops the statement_timeout start-up parameter (deploy/pgbouncer/pgbouncer.ini), so the
-- gateway's bound on a statement (DB_STATEMENT_TIMEOUT_MS, 15 s) is set on its role instead.
ALTER ROLE gateway SET statement_timeout = '15s';
