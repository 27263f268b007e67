-- AlterTable
ALTER TABLE "Payment" ADD COLUMN     "checkAttempts" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "nextCheckAt" TIMESTAMPTZ(3),
ADD COLUMN     "requestedBy" TEXT;

-- CreateTable
CREATE TABLE "WebhookDelivery" (
    "id" BIGSERIAL NOT NULL,
    "paymentId" VARCHAR(36) NOT NULL,
    "status" TEXT NOT NULL,
    "body" JSONB NOT NULL,
    "outcome" TEXT NOT NULL,
    "receivedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "WebhookDelivery_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "WebhookDelivery_paymentId_id_idx" ON "WebhookDelivery"("paymentId", "id");

-- CreateIndex
CREATE INDEX "Payment_nextCheckAt_idx" ON "Payment"("nextCheckAt");
