-- AlterEnum
ALTER TYPE "BatchItemStatus" ADD VALUE 'DUPLICATE';

-- AlterTable
ALTER TABLE "Batch" ADD COLUMN     "flaggedAmount" DECIMAL(18,2) NOT NULL DEFAULT 0,
ADD COLUMN     "flaggedCount" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "forced" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "importHeartbeatAt" TIMESTAMPTZ(3),
ADD COLUMN     "includeFlagged" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "BatchItem" ADD COLUMN     "duplicateOf" VARCHAR(36),
ADD COLUMN     "payeeKey" CHAR(32);

-- CreateIndex
CREATE INDEX "BatchItem_payeeKey_idx" ON "BatchItem"("payeeKey");
