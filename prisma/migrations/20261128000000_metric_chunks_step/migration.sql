-- A chunk whose samples are evenly spaced records the spacing: its times are start_ms, start_ms +
-- step_ms, ... (`samples` of them), so a range query reads its values and not its times, half the
-- bytes. NULL (chunks of one sample, unevenly spaced ones, those compacted before): read `times`.
ALTER TABLE "metric_chunks" ADD COLUMN "step_ms" INTEGER;
