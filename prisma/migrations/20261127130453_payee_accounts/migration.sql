-- CreateEnum
CREATE TYPE "PayeeMark" AS ENUM ('NEW_PAYEE', 'ACCOUNT_CHANGED', 'KNOWN');

-- AlterTable
ALTER TABLE "Batch" ADD COLUMN     "changedAccountAmount" DECIMAL(18,2) NOT NULL DEFAULT 0,
ADD COLUMN     "changedAccountCount" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "includeChangedAccounts" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "BatchItem" ADD COLUMN     "accountKey" CHAR(32),
ADD COLUMN     "payeeId" VARCHAR(36),
ADD COLUMN     "payeeLastPaidAt" TIMESTAMPTZ(3),
ADD COLUMN     "payeeMark" "PayeeMark";

-- CreateTable
CREATE TABLE "PayeeAccount" (
    "payeeId" VARCHAR(36) NOT NULL,
    "accountKey" CHAR(32) NOT NULL,
    "lastPaidAt" TIMESTAMPTZ(3) NOT NULL,
    "lastPaymentId" VARCHAR(36) NOT NULL,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PayeeAccount_pkey" PRIMARY KEY ("payeeId")
);
