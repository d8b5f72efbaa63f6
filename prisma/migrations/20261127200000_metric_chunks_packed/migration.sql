-- Chunks keep their samples packed as big-endian doubles, 8 bytes each (float8send of the time in
-- ms, exact as a double, and of the value), so a range query reads them as they are stored: no array
-- for the server to build or print, none for the gateway to parse. `samples` says how many.
ALTER TABLE "metric_chunks" ADD COLUMN "samples" INTEGER, ADD COLUMN "packed_times" BYTEA, ADD COLUMN "packed_values" BYTEA;

UPDATE "metric_chunks" SET
    "samples" = cardinality("times"),
    "packed_times" = (SELECT string_agg(float8send(t::float8), ''::bytea ORDER BY i) FROM unnest("times") WITH ORDINALITY AS u(t, i)),
    "packed_values" = (SELECT string_agg(float8send(v), ''::bytea ORDER BY i) FROM unnest("values") WITH ORDINALITY AS u(v, i));

ALTER TABLE "metric_chunks" DROP COLUMN "times", DROP COLUMN "values";
ALTER TABLE "metric_chunks" RENAME COLUMN "packed_times" TO "times";
ALTER TABLE "metric_chunks" RENAME COLUMN "packed_values" TO "values";
ALTER TABLE "metric_chunks" ALTER COLUMN "samples" SET NOT NULL, ALTER COLUMN "times" SET NOT NULL, ALTER COLUMN "values" SET NOT NULL;
