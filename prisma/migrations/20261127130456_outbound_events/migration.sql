-- CreateTable
CREATE TABLE "OutboundEvent" (
    "seq" BIGSERIAL NOT NULL,
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "xid" BIGINT NOT NULL DEFAULT ((pg_current_xact_id())::text)::bigint,
    "type" TEXT NOT NULL,
    "subjectId" TEXT NOT NULL,
    "occurredAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "data" JSONB NOT NULL,

    CONSTRAINT "OutboundEvent_pkey" PRIMARY KEY ("seq")
);

-- CreateTable
CREATE TABLE "EventSubscription" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "url" TEXT NOT NULL,
    "types" TEXT[],
    "description" TEXT NOT NULL DEFAULT '',
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "disabledReason" TEXT,
    "disabledAt" TIMESTAMPTZ(3),
    "secret" JSONB NOT NULL,
    "previousSecret" JSONB,
    "previousUntil" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "createdBy" TEXT NOT NULL,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "cursorXid" BIGINT NOT NULL,
    "cursorSeq" BIGINT NOT NULL,
    "nextSequence" BIGINT NOT NULL DEFAULT 1,
    "headSeq" BIGINT,
    "headSequence" BIGINT,
    "headAttempts" INTEGER NOT NULL DEFAULT 0,
    "failingSince" TIMESTAMPTZ(3),
    "nextAttemptAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "leaseOwner" TEXT,
    "leaseToken" UUID,
    "leaseUntil" TIMESTAMPTZ(3),

    CONSTRAINT "EventSubscription_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "EventDeliveryAttempt" (
    "id" BIGSERIAL NOT NULL,
    "subscriptionId" UUID NOT NULL,
    "eventId" UUID NOT NULL,
    "eventType" TEXT NOT NULL,
    "sequence" BIGINT NOT NULL,
    "attempt" INTEGER NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "outcome" TEXT NOT NULL,
    "statusCode" INTEGER,
    "durationMs" INTEGER NOT NULL,
    "excerpt" TEXT,
    "resend" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "EventDeliveryAttempt_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "OutboundEvent_id_key" ON "OutboundEvent"("id");

-- CreateIndex
CREATE INDEX "OutboundEvent_xid_seq_idx" ON "OutboundEvent"("xid", "seq");

-- CreateIndex
CREATE INDEX "OutboundEvent_occurredAt_idx" ON "OutboundEvent"("occurredAt");

-- CreateIndex
CREATE INDEX "EventSubscription_enabled_nextAttemptAt_idx" ON "EventSubscription"("enabled", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "EventDeliveryAttempt_subscriptionId_id_idx" ON "EventDeliveryAttempt"("subscriptionId", "id");

-- CreateIndex
CREATE INDEX "EventDeliveryAttempt_eventId_idx" ON "EventDeliveryAttempt"("eventId");

-- CreateIndex
CREATE INDEX "EventDeliveryAttempt_at_idx" ON "EventDeliveryAttempt"("at");
