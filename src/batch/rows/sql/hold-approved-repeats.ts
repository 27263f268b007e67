import type { SqlQuery } from '../../../db/database.ts';
import { sqlList, sqlName } from '../../../db/sql-list.ts';
import { ALREADY_PAID, ALREADY_PAID_TEMPLATE, repeatedRowWords } from '../held-row-words.ts';
import { BatchItemStatus } from '../../../db/generated/enums.ts';
import { payingItemStatuses } from '../../states/row-states.ts';

/**
 * At approval, the batch's PENDING rows (and those held only for a changed account) that now repeat a row of another approved batch
 * (the rule of held-rows.ts: payee, amount, and reference unless either has none;
 * paying, or finished within the window) are held (DUPLICATE) with a problem naming the
 * earlier row, in one statement. The import held what repeats batches approved before it; this
 * catches a batch approved between this one's import and its approval. Approvals run one
 * at a time (the caller's advisory lock), so of two overlapping batches approved at once
 * the second sees the first.
 */
/** The Batch columns keep their first names (prisma/schema.prisma maps heldCount and heldAmount onto them). */
const sql = `
WITH hits AS (
  SELECT DISTINCT ON (i.id) i.id, i.line, i.amount, i.status AS was, e."paymentId" AS earlier,
    format($6, e.line, e."batchId",
      CASE e.status WHEN ${sqlName(BatchItemStatus.COMPLETED)} THEN $8 WHEN ${sqlName(BatchItemStatus.NEEDS_REVIEW)} THEN $9 ELSE $10 END,
      -- "27 Nov 2026" as utcDay() writes it: FM drops the day's leading zero, Mon (not TMMon) is English whatever the locale.
      to_char(COALESCE(e."finishedAt", b."approvedAt") AT TIME ZONE 'UTC', 'FMDD Mon YYYY')) AS message
  FROM "BatchItem" AS i
  JOIN "ApprovedPayee" AS a ON a."payeeKey" = i."payeeKey"
  JOIN "BatchItem" AS e ON e.id = a."itemId" AND e.amount = i.amount AND e."batchId" <> i."batchId"
    AND (i.reference IS NULL OR e.reference IS NULL OR i.reference = e.reference)
  JOIN "Batch" AS b ON b.id = e."batchId"
  -- A row held only for a changed account (no repeat named) is looked at too: including changed
  -- accounts must not pay a row that has since come to repeat a payment.
  WHERE i."batchId" = $1 AND (i.status = $2::"BatchItemStatus" OR (i.status = $5::"BatchItemStatus" AND i."duplicateOf" IS NULL))
    AND i."payeeKey" IS NOT NULL
    AND b."approvedAt" IS NOT NULL AND e.status = ANY($3::text[]::"BatchItemStatus"[])
    AND (e."finishedAt" IS NULL OR e."finishedAt" >= now() - $4 * interval '1 day')
  ORDER BY i.id, b."approvedAt", e.line
), held AS (
  UPDATE "BatchItem" AS u
  SET status = $5::"BatchItemStatus", "duplicateOf" = hits.earlier, "errorCode" = $7, "errorMessage" = hits.message, "updatedAt" = now()
  FROM hits WHERE u.id = hits.id
  RETURNING u.id
), problems AS (
  INSERT INTO "BatchProblem" ("batchId", line, "column", code, severity, message)
  SELECT $1, hits.line, NULL, $7, 'warning', hits.message FROM hits
), counted AS (
  UPDATE "Batch" SET "flaggedCount" = "flaggedCount" + (SELECT count(*) FROM hits),
    "flaggedAmount" = "flaggedAmount" + (SELECT COALESCE(sum(amount), 0) FROM hits),
    "warningCount" = "warningCount" + (SELECT count(*) FROM hits),
    -- Rows held until now for a changed account only move to the repeats' count (the counts stay apart).
    "changedAccountCount" = "changedAccountCount" - (SELECT count(*) FROM hits WHERE was = $5::"BatchItemStatus"),
    "changedAccountAmount" = "changedAccountAmount" - (SELECT COALESCE(sum(amount), 0) FROM hits WHERE was = $5::"BatchItemStatus")
  WHERE id = $1 AND EXISTS (SELECT 1 FROM hits)
)
SELECT count(*)::int AS held FROM held`;

/** How many rows it held now (0: none repeats a payment approved since the import). */
export async function holdApprovedRepeats(query: SqlQuery, batchId: string, windowDays: number): Promise<number> {
  const rows = await query<{ held: number }>(sql, [
    batchId,
    BatchItemStatus.PENDING,
    payingItemStatuses,
    windowDays,
    BatchItemStatus.DUPLICATE,
    ALREADY_PAID_TEMPLATE,
    ALREADY_PAID,
    repeatedRowWords.COMPLETED,
    repeatedRowWords.NEEDS_REVIEW,
    repeatedRowWords.paying,
  ]);
  return rows[0]?.held ?? 0;
}

/**
 * The same rule for a FAILED row about to be paid again (retryFailedItems), as SQL for
 * `NOT EXISTS (…)` inside an UPDATE of "BatchItem": a row whose payee has been paid the same
 * amount (or is being paid) by another approved batch since it failed is left FAILED, so
 * that a retry cannot pay a person whom a corrected file already paid. `windowDays` is the
 * statement's parameter holding the window (`$2`).
 */
export function repeatsPayingSql(windowDays: string): string {
  return `
    SELECT 1 FROM "ApprovedPayee" AS a JOIN "BatchItem" AS e ON e.id = a."itemId" JOIN "Batch" AS b ON b.id = e."batchId"
    WHERE a."payeeKey" = "BatchItem"."payeeKey" AND e.amount = "BatchItem".amount AND e."batchId" <> "BatchItem"."batchId"
      AND ("BatchItem".reference IS NULL OR e.reference IS NULL OR "BatchItem".reference = e.reference)
      AND b."approvedAt" IS NOT NULL AND e.status IN (${sqlList(payingItemStatuses)})
      AND (e."finishedAt" IS NULL OR e."finishedAt" >= now() - ${windowDays} * interval '1 day')`;
}
