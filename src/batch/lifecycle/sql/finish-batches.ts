import type { SqlQuery } from '../../../db/database.ts';
import { sqlList } from '../../../db/sql-list.ts';
import { batchMoveSql, finishableStates, payingStates } from '../../states/batch-states.ts';
import { activeItemStatuses, rowGuardsSql, unfundedRowSql } from '../../states/row-states.ts';
import { outboxCte } from '../../../outbound/index.ts';
import { batchEndEventsSelect } from '../../events/sql/batch-end-events.ts';
import { recordPaidAccountsCte } from '../../../payees/sql/record-paid-accounts.ts';

/**
 * Ends every given batch (all RUNNING and CANCELLED ones when `batchIds` is null) that has
 * no row left to move, to the target of its `finish` move in batch-states.ts: RUNNING becomes
 * COMPLETED, or COMPLETED_WITH_FAILURES when any row did not complete; a CANCELLED batch gets
 * its finishing time. Run once per group of rows
 * that reached an end, and by the idle sweep, so a crash between a row's last write and
 * this statement never leaves a batch running forever. A running batch with a row that failed
 * for lack of funds and can be paid again does not end: it pauses for funds (funds/sql/pause-for-funds.ts),
 * in the statement after the row's write or at the next sweep. Each batch ended is an outbound event
 * with its totals, committed with the end (outbound/).
 */
const sql = `
WITH ended AS (
UPDATE "Batch" AS b
SET status = ${batchMoveSql('finish', 'b', rowGuardsSql('b'))},
  "finishedAt" = now()
WHERE ($1::text[] IS NULL OR b.id = ANY($1::text[]))
  AND b.status IN (${sqlList(finishableStates)}) AND b."finishedAt" IS NULL
  AND NOT EXISTS (
    SELECT 1 FROM "BatchItem" AS a
    WHERE a."batchId" = b.id AND a.status IN (${sqlList(activeItemStatuses)}))
  AND NOT (b.status IN (${sqlList(payingStates)}) AND EXISTS (SELECT 1 FROM "BatchItem" AS u WHERE u."batchId" = b.id AND ${unfundedRowSql('u')}))
RETURNING b.id, b.status::text AS status
), payees AS (${recordPaidAccountsCte('ended')}
), ${outboxCte('end_events', batchEndEventsSelect('ended'))}
SELECT id FROM ended`;

export async function finishBatches(query: SqlQuery, batchIds: string[] | null): Promise<string[]> {
  const rows = await query<{ id: string }>(sql, [batchIds]);
  return rows.map((row) => row.id);
}
