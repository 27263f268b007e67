import type { SqlQuery } from '../../../db/database.ts';
import { sqlList } from '../../../db/sql-list.ts';
import { batchMoveSql, finishableStates, statesFrom } from '../../states/batch-states.ts';
import { rowGuardsSql } from '../../states/row-states.ts';

const guards = rowGuardsSql('b');

/**
 * A finished run's status again after rows under review were settled: the target of its
 * `review` move in batch-states.ts, picked by what its rows say (rowGuardsSql): RUNNING again while a row is being paid (a payment read IN_PROGRESS, for
 * the worker to read to its end; finishing sets the status once it has), else COMPLETED once
 * no row is left that did not complete. A batch still running is left to finish-batches.ts,
 * a cancelled one stays cancelled.
 */
const sql = `
UPDATE "Batch" AS b
SET status = ${batchMoveSql('review', 'b', guards)},
  -- A run that goes on (a target a finish ends) is unfinished again.
  "finishedAt" = CASE WHEN ${batchMoveSql('review', 'b', guards)} IN (${sqlList(finishableStates)}) THEN NULL ELSE b."finishedAt" END
WHERE b.id = $1 AND b.status IN (${sqlList(statesFrom('review'))})
RETURNING b.status::text AS status`;

/** Returns the batch's status when it was one a review restates, else null. */
export async function restateReviewedBatch(query: SqlQuery, batchId: string): Promise<string | null> {
  const rows = await query<{ status: string }>(sql, [batchId]);
  return rows[0]?.status ?? null;
}
