-- CreateIndex
CREATE INDEX "Payment_batchId_createdAt_idx" ON "Payment"("batchId", "createdAt");
