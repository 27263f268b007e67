-- AlterTable
ALTER TABLE "Batch" ADD COLUMN     "fileKey" CHAR(64);

-- AlterTable
ALTER TABLE "BatchItem" ADD COLUMN     "leaseToken" UUID;

-- CreateIndex
CREATE UNIQUE INDEX "Batch_fileKey_key" ON "Batch"("fileKey");
