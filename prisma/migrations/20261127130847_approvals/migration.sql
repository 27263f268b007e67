-- CreateTable
CREATE TABLE "Approval" (
    "id" BIGSERIAL NOT NULL,
    "batchId" VARCHAR(16),
    "paymentId" VARCHAR(36),
    "actor" TEXT NOT NULL,
    "role" TEXT,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "rowSet" VARCHAR(64) NOT NULL,
    "includeHeld" BOOLEAN NOT NULL DEFAULT false,
    "validRowsOnly" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "Approval_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Approval_batchId_at_idx" ON "Approval"("batchId", "at");

-- CreateIndex
CREATE INDEX "Approval_paymentId_at_idx" ON "Approval"("paymentId", "at");
