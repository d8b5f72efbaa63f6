-- An evenly spaced chunk's times follow from start_ms, step_ms and samples: it stores none (TOAST
-- compression had squeezed them to little on disk; compacting no longer packs them at all). A chunk
-- that is not evenly spaced (or holds one sample) keeps them; the check keeps every chunk's times
-- recoverable.
ALTER TABLE "metric_chunks" ALTER COLUMN "times" DROP NOT NULL;
UPDATE "metric_chunks" SET "times" = NULL WHERE "step_ms" IS NOT NULL;
ALTER TABLE "metric_chunks" ADD CONSTRAINT "metric_chunks_times_or_step" CHECK ("times" IS NOT NULL OR "step_ms" IS NOT NULL);
