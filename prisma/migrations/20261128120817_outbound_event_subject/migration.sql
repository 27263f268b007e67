-- CreateIndex
CREATE INDEX "OutboundEvent_subjectId_idx" ON "OutboundEvent"("subjectId");
