-- CreateTable
CREATE TABLE "alert_silences" (
    "id" UUID NOT NULL,
    "alert_id" UUID NOT NULL,
    "manager" VARCHAR(16) NOT NULL,
    "manager_silence_id" VARCHAR(64),
    "start_time" TIMESTAMPTZ(3) NOT NULL,
    "end_time" TIMESTAMPTZ(3) NOT NULL,
    "comment" VARCHAR(500) NOT NULL,
    "created_by" VARCHAR(120) NOT NULL,
    "updated_by" VARCHAR(120) NOT NULL,
    "created_date" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_date" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "alert_silences_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "metric_aliases" (
    "id" UUID NOT NULL,
    "alias" VARCHAR(200) NOT NULL,
    "component" VARCHAR(100) NOT NULL,
    "sub_component" VARCHAR(200),
    "metric" TEXT NOT NULL,
    "context" JSONB,
    "created_by" VARCHAR(120) NOT NULL,
    "updated_by" VARCHAR(120) NOT NULL,
    "created_date" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_date" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "metric_aliases_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "notification_channels" (
    "id" UUID NOT NULL,
    "manager" VARCHAR(16) NOT NULL,
    "name" VARCHAR(200) NOT NULL,
    "type" VARCHAR(16) NOT NULL,
    "config" JSONB NOT NULL,
    "created_by" VARCHAR(120) NOT NULL,
    "updated_by" VARCHAR(120) NOT NULL,
    "created_date" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_date" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "notification_channels_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "alert_silences_alert_id_key" ON "alert_silences"("alert_id");

-- CreateIndex
CREATE INDEX "alert_silences_end_time_idx" ON "alert_silences"("end_time");

-- CreateIndex
CREATE UNIQUE INDEX "metric_aliases_alias_key" ON "metric_aliases"("alias");

-- CreateIndex
CREATE INDEX "metric_aliases_component_idx" ON "metric_aliases"("component");

-- CreateIndex
CREATE UNIQUE INDEX "notification_channels_name_key" ON "notification_channels"("name");

-- CreateIndex
CREATE INDEX "notification_channels_manager_idx" ON "notification_channels"("manager");


-- Added by hand: the store refuses what the service would never write.
ALTER TABLE "alert_silences" ADD CONSTRAINT "alert_silences_manager_check" CHECK ("manager" IN ('embedded', 'alertmanager', 'grafana'));
ALTER TABLE "alert_silences" ADD CONSTRAINT "alert_silences_window_check" CHECK ("end_time" > "start_time");
ALTER TABLE "notification_channels" ADD CONSTRAINT "notification_channels_manager_check" CHECK ("manager" IN ('embedded', 'grafana'));
ALTER TABLE "notification_channels" ADD CONSTRAINT "notification_channels_type_check" CHECK ("type" IN ('email', 'slack', 'teams'));
