-- Notification channels get a lifecycle: draft (only this record), live (also at its manager),
-- retired (removed there, record kept). Every existing channel was created at its manager when it
-- was stored, so it is live; new rows are drafts.
ALTER TABLE "notification_channels" ADD COLUMN "status" VARCHAR(16) NOT NULL DEFAULT 'live';
ALTER TABLE "notification_channels" ALTER COLUMN "status" SET DEFAULT 'draft';
ALTER TABLE "notification_channels" ADD CONSTRAINT "notification_channels_status_check" CHECK ("status" IN ('draft', 'live', 'retired'));

CREATE INDEX "notification_channels_status_idx" ON "notification_channels"("status");
