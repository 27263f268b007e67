import type { SqlQuery } from '../../../db/database.ts';
import { sqlList, sqlName } from '../../../db/sql-list.ts';
import { approvableStates, batchStates, closedStates } from '../../states/batch-states.ts';
import { activeItemStatuses, unpayableItemStatuses } from '../../states/row-states.ts';

/**
 * Drops the sealed recipient (`fields.$sealed`, see card-data.ts) of rows that can no
 * longer be paid, leaving the masked fields: rows that are final for good (COMPLETED,
 * CANCELLED, INVALID); every row of a batch that has ended COMPLETED or CANCELLED (no retry
 * is possible), or that was rejected for errors of the whole file (it can never be
 * approved); and, after the retention period, FAILED and EXPIRED rows (which
 * retryFailedItems could pay again until then), NEEDS_REVIEW rows (which a review may
 * still prove unpaid, review-states.ts) and rows of batches never approved.
 * The row moves themselves drop it as rows become final (move-items.ts); this catches
 * everything else, and is cheap when there is nothing to do.
 */
const sql = `
UPDATE "BatchItem" AS i SET fields = i.fields - '$sealed'::text, "updatedAt" = now()
FROM "Batch" AS b
WHERE b.id = i."batchId" AND (i.fields -> '$sealed') IS NOT NULL
  AND ($1::text[] IS NULL OR i."batchId" = ANY($1::text[]))
  AND i.status NOT IN (${sqlList(activeItemStatuses)})
  AND (
    i.status IN (${sqlList(unpayableItemStatuses)})
    OR (b.status IN (${sqlList(closedStates)}) AND b."finishedAt" IS NOT NULL)
    OR ($2::float8 IS NOT NULL AND i."finishedAt" < now() - $2::float8 * interval '1 day')
  )
RETURNING i."batchId"`;

/**
 * Rows never paid because their batch was not approved (in time), or cannot be: a rejected
 * batch with no valid row (an import that failed part-way counts none valid) or with an
 * error of the whole file is refused by approve (batch-service.ts).
 */
const unapprovedSql = `
UPDATE "BatchItem" AS i SET fields = i.fields - '$sealed'::text, "updatedAt" = now()
FROM "Batch" AS b
WHERE b.id = i."batchId" AND (i.fields -> '$sealed') IS NOT NULL
  AND ($1::text[] IS NULL OR i."batchId" = ANY($1::text[]))
  AND b.status IN (${sqlList(approvableStates)})
  AND (
    ($2::float8 IS NOT NULL AND b."createdAt" < now() - $2::float8 * interval '1 day')
    OR (b.status = ${sqlName(batchStates.rejected)} AND b."validCount" = 0)
    OR (b.status = ${sqlName(batchStates.rejected)} AND EXISTS (
      SELECT 1 FROM "BatchProblem" AS p
      WHERE p."batchId" = b.id AND p.severity = 'error' AND (p.line IS NULL OR p.line = 1)))
  )
RETURNING i."batchId"`;

/**
 * `batchIds` null: every batch. `retentionDays` null: only what can never be paid, with no
 * time rule (for callers that do not know the retention period). Returns the batches touched.
 */
export async function scrubCardData(
  query: SqlQuery,
  scope: { batchIds: string[] | null; retentionDays: number | null },
): Promise<string[]> {
  const params = [scope.batchIds, scope.retentionDays];
  const rows = [...(await query<{ batchId: string }>(sql, params)), ...(await query<{ batchId: string }>(unapprovedSql, params))];
  return [...new Set(rows.map((row) => row.batchId))];
}
