-- Alert rules (the original's `alerts` table, typed), where each stands in the embedded evaluator,
-- and every notification the evaluator decided to send, with its outcome.
CREATE TABLE "alert_rules" (
    "id" UUID NOT NULL,
    "name" VARCHAR(200) NOT NULL,
    "manager" VARCHAR(16) NOT NULL,
    "status" VARCHAR(16) NOT NULL DEFAULT 'draft',
    "description" VARCHAR(2000) NOT NULL DEFAULT '',
    "metric" TEXT NOT NULL,
    "operator" VARCHAR(16) NOT NULL,
    "thresholds" DOUBLE PRECISION[] NOT NULL,
    "expression" TEXT NOT NULL,
    "severity" VARCHAR(16) NOT NULL DEFAULT 'warning',
    "category" VARCHAR(100) NOT NULL,
    "evaluation_interval_ms" INTEGER NOT NULL,
    "pending_for_ms" INTEGER NOT NULL,
    "labels" JSONB NOT NULL DEFAULT '{}',
    "annotations" JSONB NOT NULL DEFAULT '{}',
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "channel_ids" UUID[] NOT NULL DEFAULT '{}',
    "context" JSONB NOT NULL DEFAULT '{}',
    "created_by" VARCHAR(120) NOT NULL,
    "updated_by" VARCHAR(120) NOT NULL,
    "created_date" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_date" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "alert_rules_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "alert_rules_name_key" ON "alert_rules"("name");
CREATE INDEX "alert_rules_status_idx" ON "alert_rules"("status");

-- One row per Live rule the embedded evaluator runs. Gateways claim due rows with
-- FOR UPDATE SKIP LOCKED, so each rule is evaluated by one gateway per interval.
CREATE TABLE "alert_rule_states" (
    "rule_id" UUID NOT NULL,
    "state" VARCHAR(16) NOT NULL DEFAULT 'inactive',
    "active_since" TIMESTAMPTZ(3),
    "firing_since" TIMESTAMPTZ(3),
    "last_notified_at" TIMESTAMPTZ(3),
    "next_evaluation_at" TIMESTAMPTZ(3) NOT NULL,
    "last_evaluated_at" TIMESTAMPTZ(3),
    "last_value" DOUBLE PRECISION,
    "last_error" VARCHAR(1000),
    "alerts" JSONB NOT NULL DEFAULT '[]',

    CONSTRAINT "alert_rule_states_pkey" PRIMARY KEY ("rule_id"),
    CONSTRAINT "alert_rule_states_rule_id_fkey" FOREIGN KEY ("rule_id") REFERENCES "alert_rules"("id") ON DELETE CASCADE
);

CREATE INDEX "alert_rule_states_next_evaluation_at_idx" ON "alert_rule_states"("next_evaluation_at");

-- Notifications are written in the transaction that changed the rule's state (an outbox), then
-- delivered; a gateway that dies in between leaves them pending for the next cycle to send.
CREATE TABLE "alert_notifications" (
    "id" UUID NOT NULL,
    "rule_id" UUID NOT NULL,
    "channel_id" UUID NOT NULL,
    "kind" VARCHAR(16) NOT NULL,
    "evaluated_at" TIMESTAMPTZ(3) NOT NULL,
    "outcome" VARCHAR(16) NOT NULL DEFAULT 'pending',
    "subject" VARCHAR(500) NOT NULL,
    "text" TEXT NOT NULL,
    "transport" VARCHAR(32),
    "response" VARCHAR(1000),
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "created_date" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "delivered_date" TIMESTAMPTZ(3),

    CONSTRAINT "alert_notifications_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "alert_notifications_rule_id_fkey" FOREIGN KEY ("rule_id") REFERENCES "alert_rules"("id") ON DELETE CASCADE
);

-- One notification per rule, channel, kind and evaluation: a cycle replayed cannot send twice.
CREATE UNIQUE INDEX "alert_notifications_rule_id_channel_id_kind_evaluated_at_key" ON "alert_notifications"("rule_id", "channel_id", "kind", "evaluated_at");
CREATE INDEX "alert_notifications_outcome_idx" ON "alert_notifications"("outcome");
