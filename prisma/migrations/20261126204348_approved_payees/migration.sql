-- The duplicate check looks imported rows up against the payees of approved batches only.
-- Those payees now have a table of their own, written at each approval, instead of an
-- index entry on the payee key of every imported row (on PGlite that entry cost the import
-- about a fifth of its time). The rows of batches approved before are copied into it here.

-- DropIndex
DROP INDEX "BatchItem_payeeKey_idx";

-- CreateTable
CREATE TABLE "ApprovedPayee" (
    "payeeKey" CHAR(32) NOT NULL,
    "itemId" BIGINT NOT NULL,

    CONSTRAINT "ApprovedPayee_pkey" PRIMARY KEY ("payeeKey","itemId")
);

-- AddForeignKey
ALTER TABLE "ApprovedPayee" ADD CONSTRAINT "ApprovedPayee_itemId_fkey" FOREIGN KEY ("itemId") REFERENCES "BatchItem"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Backfill: every keyed row of every batch approved so far
INSERT INTO "ApprovedPayee" ("payeeKey", "itemId")
SELECT i."payeeKey", i.id FROM "BatchItem" AS i JOIN "Batch" AS b ON b.id = i."batchId"
WHERE b."approvedAt" IS NOT NULL AND i."payeeKey" IS NOT NULL;
