-- The embedded metrics store: every series the gateways sampled (name and labels), and their samples.
CREATE TABLE "metric_series" (
    "id" SERIAL NOT NULL,
    "name" VARCHAR(200) NOT NULL,
    "labels" JSONB NOT NULL,
    "signature" TEXT NOT NULL,
    "last_sample_ms" BIGINT NOT NULL,

    CONSTRAINT "metric_series_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "metric_series_signature_key" ON "metric_series"("signature");
CREATE INDEX "metric_series_name_idx" ON "metric_series"("name");

CREATE TABLE "metric_samples" (
    "series_id" INTEGER NOT NULL,
    "at_ms" BIGINT NOT NULL,
    "value" DOUBLE PRECISION NOT NULL,

    CONSTRAINT "metric_samples_pkey" PRIMARY KEY ("series_id","at_ms")
);

-- Retention deletes by time: a BRIN index is a few pages for days of samples written in time order.
CREATE INDEX "metric_samples_at_ms_idx" ON "metric_samples" USING BRIN ("at_ms");

-- Completed hours of samples, one row per series and hour: what range queries read (a day of one
-- series is 24 rows instead of 5,760) and a sixth of the disk.
CREATE TABLE "metric_chunks" (
    "series_id" INTEGER NOT NULL,
    "start_ms" BIGINT NOT NULL,
    "end_ms" BIGINT NOT NULL,
    "times" BIGINT[] NOT NULL,
    "values" DOUBLE PRECISION[] NOT NULL,

    CONSTRAINT "metric_chunks_pkey" PRIMARY KEY ("series_id","start_ms")
);

CREATE INDEX "metric_chunks_end_ms_idx" ON "metric_chunks" USING BRIN ("end_ms");
