-- CreateTable
CREATE TABLE "AuditEvent" (
    "id" BIGSERIAL NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "action" TEXT NOT NULL,
    "actor" TEXT NOT NULL,
    "role" TEXT,
    "batchId" VARCHAR(16),
    "paymentId" VARCHAR(36),
    "detail" JSONB,
    "requestId" VARCHAR(64),

    CONSTRAINT "AuditEvent_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "AuditEvent_batchId_id_idx" ON "AuditEvent"("batchId", "id");

-- CreateIndex
CREATE INDEX "AuditEvent_paymentId_id_idx" ON "AuditEvent"("paymentId", "id");

-- CreateIndex
CREATE INDEX "AuditEvent_action_id_idx" ON "AuditEvent"("action", "id");

-- CreateIndex
CREATE INDEX "AuditEvent_at_idx" ON "AuditEvent"("at");
