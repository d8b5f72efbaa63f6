-- A range query lists the chunks of its series in its window (start and sample count) before
-- reading only those not cached in the gateway: with every listed column in the index, the
-- listing is an index-only scan instead of a read of the chunks' heap pages, values and all.
CREATE INDEX "metric_chunks_series_id_end_ms_start_ms_samples_idx" ON "metric_chunks"("series_id", "end_ms", "start_ms", "samples");
