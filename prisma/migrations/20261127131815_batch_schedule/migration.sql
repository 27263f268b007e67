-- AlterEnum
ALTER TYPE "BatchStatus" ADD VALUE 'SCHEDULED';

-- AlterTable
ALTER TABLE "Batch" ADD COLUMN     "forecastAt" TIMESTAMPTZ(3),
ADD COLUMN     "forecastReadAt" TIMESTAMPTZ(3),
ADD COLUMN     "forecastShortfall" DECIMAL(18,2),
ADD COLUMN     "payAt" TIMESTAMPTZ(3);

-- CreateIndex
CREATE INDEX "Batch_status_payAt_idx" ON "Batch"("status", "payAt");
