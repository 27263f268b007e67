-- CreateEnum
CREATE TYPE "BatchStatus" AS ENUM ('VALIDATING', 'REJECTED', 'VALIDATED', 'RUNNING', 'COMPLETED', 'COMPLETED_WITH_FAILURES', 'CANCELLED');

-- CreateEnum
CREATE TYPE "BatchItemStatus" AS ENUM ('PENDING', 'CREATING', 'READY', 'EXECUTING', 'IN_PROGRESS', 'COMPLETED', 'FAILED', 'EXPIRED', 'CANCELLED', 'NEEDS_REVIEW', 'INVALID');

-- CreateTable
CREATE TABLE "Batch" (
    "id" VARCHAR(16) NOT NULL,
    "name" TEXT NOT NULL,
    "fileName" TEXT,
    "fileHash" CHAR(64) NOT NULL,
    "fileBytes" INTEGER NOT NULL,
    "status" "BatchStatus" NOT NULL DEFAULT 'VALIDATING',
    "rowCount" INTEGER NOT NULL DEFAULT 0,
    "validCount" INTEGER NOT NULL DEFAULT 0,
    "invalidCount" INTEGER NOT NULL DEFAULT 0,
    "warningCount" INTEGER NOT NULL DEFAULT 0,
    "totalAmount" DECIMAL(18,2) NOT NULL DEFAULT 0,
    "currency" CHAR(3) NOT NULL DEFAULT 'RUB',
    "validRowsOnly" BOOLEAN NOT NULL DEFAULT false,
    "uploadedBy" TEXT,
    "approvedBy" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "validatedAt" TIMESTAMPTZ(3),
    "approvedAt" TIMESTAMPTZ(3),
    "startedAt" TIMESTAMPTZ(3),
    "finishedAt" TIMESTAMPTZ(3),
    "cancelledAt" TIMESTAMPTZ(3),

    CONSTRAINT "Batch_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "BatchItem" (
    "id" BIGSERIAL NOT NULL,
    "batchId" VARCHAR(16) NOT NULL,
    "line" INTEGER NOT NULL,
    "reference" TEXT,
    "paymentId" VARCHAR(36) NOT NULL,
    "attempt" INTEGER NOT NULL DEFAULT 1,
    "providerCode" TEXT NOT NULL,
    "amount" DECIMAL(18,2) NOT NULL,
    "currency" CHAR(3) NOT NULL,
    "fields" JSONB NOT NULL,
    "customFields" JSONB,
    "status" "BatchItemStatus" NOT NULL DEFAULT 'PENDING',
    "errorCode" TEXT,
    "errorMessage" TEXT,
    "billingDetails" JSONB,
    "retries" INTEGER NOT NULL DEFAULT 0,
    "notBefore" TIMESTAMPTZ(3),
    "leaseOwner" TEXT,
    "leaseExpiresAt" TIMESTAMPTZ(3),
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,
    "finishedAt" TIMESTAMPTZ(3),

    CONSTRAINT "BatchItem_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "BatchProblem" (
    "id" BIGSERIAL NOT NULL,
    "batchId" VARCHAR(16) NOT NULL,
    "line" INTEGER,
    "column" TEXT,
    "code" TEXT NOT NULL,
    "severity" TEXT NOT NULL,
    "message" TEXT NOT NULL,

    CONSTRAINT "BatchProblem_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Batch_fileHash_idx" ON "Batch"("fileHash");

-- CreateIndex
CREATE INDEX "Batch_status_createdAt_idx" ON "Batch"("status", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "BatchItem_paymentId_key" ON "BatchItem"("paymentId");

-- CreateIndex
CREATE INDEX "BatchItem_batchId_line_idx" ON "BatchItem"("batchId", "line");

-- CreateIndex
CREATE INDEX "BatchItem_batchId_status_idx" ON "BatchItem"("batchId", "status");

-- CreateIndex
CREATE INDEX "BatchItem_status_notBefore_idx" ON "BatchItem"("status", "notBefore");

-- CreateIndex
CREATE INDEX "BatchProblem_batchId_line_idx" ON "BatchProblem"("batchId", "line");

-- AddForeignKey
ALTER TABLE "BatchItem" ADD CONSTRAINT "BatchItem_batchId_fkey" FOREIGN KEY ("batchId") REFERENCES "Batch"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "BatchProblem" ADD CONSTRAINT "BatchProblem_batchId_fkey" FOREIGN KEY ("batchId") REFERENCES "Batch"("id") ON DELETE CASCADE ON UPDATE CASCADE;
