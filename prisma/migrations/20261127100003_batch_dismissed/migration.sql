-- AlterTable
ALTER TABLE "Batch" ADD COLUMN     "dismissedAt" TIMESTAMPTZ(3),
ADD COLUMN     "dismissedBy" TEXT;
