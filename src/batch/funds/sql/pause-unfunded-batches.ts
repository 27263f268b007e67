import type { SqlQuery } from '../../../db/database.ts';
import { sqlList } from '../../../db/sql-list.ts';
import { payingStates } from '../../states/batch-states.ts';
import { unfundedRowSql } from '../../states/row-states.ts';
import { pauseForFunds } from './pause-for-funds.ts';

/**
 * Running batches with a row that failed for lack of funds and can be paid again, paused for
 * funds: the sweep's catch-up for a worker that wrote such a row and died before its pause.
 */
export async function pauseUnfundedBatches(query: SqlQuery, firstCheckMs: number): Promise<string[]> {
  const batches = await query<{ id: string }>(
    `SELECT DISTINCT u."batchId" AS id FROM "Batch" AS b JOIN "BatchItem" AS u ON u."batchId" = b.id
     WHERE b.status IN (${sqlList(payingStates)}) AND ${unfundedRowSql('u')}`,
    [],
  );
  return batches.length === 0
    ? []
    : pauseForFunds(
        query,
        batches.map((b) => b.id),
        firstCheckMs,
      );
}
