-- AlterTable
ALTER TABLE "Approval" ADD COLUMN     "includeChangedAccounts" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "payAt" TIMESTAMPTZ(3);
