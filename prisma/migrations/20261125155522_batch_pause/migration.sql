-- CreateEnum
CREATE TYPE "BatchPauseReason" AS ENUM ('PERSON', 'FUNDS');

-- AlterEnum
ALTER TYPE "BatchStatus" ADD VALUE 'PAUSED';

-- AlterTable
ALTER TABLE "Batch" ADD COLUMN     "fundsCheckAt" TIMESTAMPTZ(3),
ADD COLUMN     "pauseReason" "BatchPauseReason",
ADD COLUMN     "pausedAt" TIMESTAMPTZ(3),
ADD COLUMN     "pausedBy" TEXT,
ADD COLUMN     "shortfall" DECIMAL(18,2);
