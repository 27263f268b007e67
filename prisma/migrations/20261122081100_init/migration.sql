-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "TrackedStatus" AS ENUM ('PENDING', 'CREATED', 'READY', 'EXPIRED', 'IN_PROGRESS', 'FAILED', 'COMPLETED', 'REJECTED', 'UNKNOWN');

-- CreateTable
CREATE TABLE "Payment" (
    "paymentId" VARCHAR(36) NOT NULL,
    "agentId" TEXT NOT NULL,
    "amount" DECIMAL(18,2) NOT NULL,
    "currency" CHAR(3) NOT NULL,
    "commission" DECIMAL(18,2),
    "providerCode" TEXT NOT NULL,
    "recipient" JSONB NOT NULL,
    "status" "TrackedStatus" NOT NULL DEFAULT 'PENDING',
    "errorCode" TEXT,
    "errorMessage" TEXT,
    "billingDetails" JSONB,
    "webhookUrl" TEXT,
    "customFields" JSONB,
    "upstreamCreatedAt" TIMESTAMPTZ(3),
    "expiresAt" TIMESTAMPTZ(3),
    "statusChangedAt" TIMESTAMPTZ(3),
    "batchId" TEXT,
    "batchRow" INTEGER,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "Payment_pkey" PRIMARY KEY ("paymentId")
);

-- CreateTable
CREATE TABLE "PaymentStatusEvent" (
    "id" BIGSERIAL NOT NULL,
    "paymentId" VARCHAR(36) NOT NULL,
    "status" "TrackedStatus" NOT NULL,
    "errorCode" TEXT,
    "errorMessage" TEXT,
    "source" TEXT NOT NULL,
    "changedAt" TIMESTAMPTZ(3),
    "recordedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PaymentStatusEvent_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Payment_status_idx" ON "Payment"("status");

-- CreateIndex
CREATE INDEX "Payment_batchId_batchRow_idx" ON "Payment"("batchId", "batchRow");

-- CreateIndex
CREATE INDEX "Payment_createdAt_idx" ON "Payment"("createdAt");

-- CreateIndex
CREATE INDEX "PaymentStatusEvent_paymentId_id_idx" ON "PaymentStatusEvent"("paymentId", "id");

-- AddForeignKey
ALTER TABLE "PaymentStatusEvent" ADD CONSTRAINT "PaymentStatusEvent_paymentId_fkey" FOREIGN KEY ("paymentId") REFERENCES "Payment"("paymentId") ON DELETE CASCADE ON UPDATE CASCADE;
