import type { SqlQuery } from '../../../db/database.ts';
import { sqlList, sqlName } from '../../../db/sql-list.ts';
import { batchStates, statesFrom } from '../../lifecycle/batch-states.ts';
import { activeItemStatuses, failedItemStatuses } from '../../rows/row-states.ts';

/**
 * A finished run's status again after rows under review were settled (the `review` moves of
 * batch-states.ts): RUNNING again while a row is being paid (a payment read IN_PROGRESS, for
 * the worker to read to its end; finishing sets the status once it has), else COMPLETED once
 * no row is left that did not complete. A batch still running is left to finish-batches.ts,
 * a cancelled one stays cancelled.
 */
const sql = `
UPDATE "Batch" AS b
SET status = CASE
    WHEN EXISTS (SELECT 1 FROM "BatchItem" AS a WHERE a."batchId" = b.id AND a.status IN (${sqlList(activeItemStatuses)}))
      THEN ${sqlName(batchStates.running)}::"BatchStatus"
    WHEN EXISTS (SELECT 1 FROM "BatchItem" AS f WHERE f."batchId" = b.id AND f.status IN (${sqlList(failedItemStatuses)}))
      THEN b.status
    ELSE ${sqlName(batchStates.completed)}::"BatchStatus" END,
  "finishedAt" = CASE
    WHEN EXISTS (SELECT 1 FROM "BatchItem" AS a WHERE a."batchId" = b.id AND a.status IN (${sqlList(activeItemStatuses)})) THEN NULL
    ELSE b."finishedAt" END
WHERE b.id = $1 AND b.status IN (${sqlList(statesFrom('review'))})
RETURNING b.status::text AS status`;

/** Returns the batch's status when it was one a review restates, else null. */
export async function restateReviewedBatch(query: SqlQuery, batchId: string): Promise<string | null> {
  const rows = await query<{ status: string }>(sql, [batchId]);
  return rows[0]?.status ?? null;
}
