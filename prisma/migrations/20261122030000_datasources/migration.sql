-- The embedded query engine: one view per Live dataset lives in this schema, over the event store.
-- Template queries run with search_path = datasources, read-only, with a statement timeout.
CREATE SCHEMA IF NOT EXISTS "datasources";

-- Druid's TIME_FLOOR(timestamp, ISO period) for the periods dashboards use. Fixed periods
-- (PT5M, PT1H, P1D, P1W...) bin from a Monday origin (Druid's weeks start on Monday); calendar
-- periods (months, quarters, years) truncate in UTC.
CREATE OR REPLACE FUNCTION "datasources"."time_floor"(ts timestamptz, period text) RETURNS timestamptz
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN period = 'P1M' THEN date_trunc('month', ts, 'UTC')
    WHEN period = 'P3M' THEN date_trunc('quarter', ts, 'UTC')
    WHEN period = 'P1Y' THEN date_trunc('year', ts, 'UTC')
    ELSE date_bin(period::interval, ts, timestamptz '2000-01-03 00:00:00+00')
  END
$$;

-- Epoch milliseconds to a timestamp, as Druid's MILLIS_TO_TIMESTAMP.
CREATE OR REPLACE FUNCTION "datasources"."millis_to_timestamp"(ms bigint) RETURNS timestamptz
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT to_timestamp(ms / 1000.0) $$;
