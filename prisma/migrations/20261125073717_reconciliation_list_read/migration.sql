-- AlterTable
ALTER TABLE "ReconciliationUpstreamPayment" ADD COLUMN     "listRead" INTEGER NOT NULL DEFAULT 0;
