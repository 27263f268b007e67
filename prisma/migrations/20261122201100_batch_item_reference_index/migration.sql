-- CreateIndex
CREATE INDEX "BatchItem_reference_idx" ON "BatchItem"("reference");
