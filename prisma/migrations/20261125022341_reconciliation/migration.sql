-- CreateEnum
CREATE TYPE "ReconciliationStatus" AS ENUM ('RUNNING', 'COMPLETED', 'FAILED');

-- CreateEnum
CREATE TYPE "DiscrepancyCode" AS ENUM ('MISSING_UPSTREAM', 'UNKNOWN_TO_GATEWAY', 'STATUS_DIFFERS', 'AMOUNT_DIFFERS', 'COMMISSION_DIFFERS', 'RECIPIENT_DIFFERS', 'NOT_FINAL');

-- CreateEnum
CREATE TYPE "DiscrepancyResolution" AS ENUM ('OPEN', 'REPAIRED');

-- CreateTable
CREATE TABLE "ReconciliationRun" (
    "id" VARCHAR(16) NOT NULL,
    "periodFrom" CHAR(10) NOT NULL,
    "periodTo" CHAR(10) NOT NULL,
    "timeZone" TEXT NOT NULL,
    "startsAt" TIMESTAMPTZ(3) NOT NULL,
    "endsAt" TIMESTAMPTZ(3) NOT NULL,
    "stuckAfterMinutes" INTEGER NOT NULL,
    "status" "ReconciliationStatus" NOT NULL DEFAULT 'RUNNING',
    "trigger" TEXT NOT NULL,
    "requestedBy" TEXT,
    "scheduleKey" TEXT,
    "leaseOwner" TEXT,
    "leaseExpiresAt" TIMESTAMPTZ(3),
    "phase" TEXT NOT NULL DEFAULT 'reading',
    "windowsTotal" INTEGER NOT NULL DEFAULT 0,
    "windowsRead" INTEGER NOT NULL DEFAULT 0,
    "upstreamRequests" INTEGER NOT NULL DEFAULT 0,
    "windowsReread" INTEGER NOT NULL DEFAULT 0,
    "upstreamCount" INTEGER NOT NULL DEFAULT 0,
    "upstreamAmount" DECIMAL(18,2) NOT NULL DEFAULT 0,
    "upstreamCommission" DECIMAL(18,2) NOT NULL DEFAULT 0,
    "gatewayCount" INTEGER NOT NULL DEFAULT 0,
    "gatewayAmount" DECIMAL(18,2) NOT NULL DEFAULT 0,
    "gatewayCommission" DECIMAL(18,2) NOT NULL DEFAULT 0,
    "upstreamPaidCount" INTEGER NOT NULL DEFAULT 0,
    "upstreamPaidAmount" DECIMAL(18,2) NOT NULL DEFAULT 0,
    "gatewayPaidCount" INTEGER NOT NULL DEFAULT 0,
    "gatewayPaidAmount" DECIMAL(18,2) NOT NULL DEFAULT 0,
    "matchedCount" INTEGER NOT NULL DEFAULT 0,
    "discrepancyCount" INTEGER NOT NULL DEFAULT 0,
    "openCount" INTEGER NOT NULL DEFAULT 0,
    "repairedCount" INTEGER NOT NULL DEFAULT 0,
    "countsByCode" JSONB,
    "error" TEXT,
    "startedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" TIMESTAMPTZ(3),

    CONSTRAINT "ReconciliationRun_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ReconciliationDiscrepancy" (
    "id" BIGSERIAL NOT NULL,
    "runId" VARCHAR(16) NOT NULL,
    "code" "DiscrepancyCode" NOT NULL,
    "paymentId" VARCHAR(36) NOT NULL,
    "batchId" VARCHAR(16),
    "batchRow" INTEGER,
    "gatewayValue" TEXT,
    "upstreamValue" TEXT,
    "gatewayStatus" TEXT,
    "upstreamStatus" TEXT,
    "finalSide" TEXT,
    "amount" DECIMAL(18,2),
    "currency" CHAR(3),
    "paymentCreatedAt" TIMESTAMPTZ(3),
    "resolution" "DiscrepancyResolution" NOT NULL DEFAULT 'OPEN',

    CONSTRAINT "ReconciliationDiscrepancy_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ReconciliationUpstreamPayment" (
    "runId" VARCHAR(16) NOT NULL,
    "paymentId" VARCHAR(36) NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL,
    "inPeriod" BOOLEAN NOT NULL,
    "status" TEXT NOT NULL,
    "amount" DECIMAL(18,2) NOT NULL,
    "currency" CHAR(3) NOT NULL,
    "commission" DECIMAL(18,2),
    "providerCode" TEXT NOT NULL,
    "recipient" JSONB NOT NULL,

    CONSTRAINT "ReconciliationUpstreamPayment_pkey" PRIMARY KEY ("runId","paymentId")
);

-- CreateIndex
CREATE UNIQUE INDEX "ReconciliationRun_scheduleKey_key" ON "ReconciliationRun"("scheduleKey");

-- CreateIndex
CREATE INDEX "ReconciliationRun_startedAt_idx" ON "ReconciliationRun"("startedAt");

-- CreateIndex
CREATE INDEX "ReconciliationRun_status_finishedAt_idx" ON "ReconciliationRun"("status", "finishedAt");

-- CreateIndex
CREATE INDEX "ReconciliationDiscrepancy_runId_id_idx" ON "ReconciliationDiscrepancy"("runId", "id");

-- CreateIndex
CREATE INDEX "ReconciliationDiscrepancy_runId_code_id_idx" ON "ReconciliationDiscrepancy"("runId", "code", "id");

-- CreateIndex
CREATE INDEX "Payment_upstreamCreatedAt_idx" ON "Payment"("upstreamCreatedAt");

-- AddForeignKey
ALTER TABLE "ReconciliationDiscrepancy" ADD CONSTRAINT "ReconciliationDiscrepancy_runId_fkey" FOREIGN KEY ("runId") REFERENCES "ReconciliationRun"("id") ON DELETE CASCADE ON UPDATE CASCADE;
