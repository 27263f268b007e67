import type { SqlQuery } from '../../../db/database.ts';
import { outboxCte } from '../../../outbound/index.ts';
import { batchEventSelect } from '../../events/sql/batch-events-sql.ts';
import { sqlList, sqlName } from '../../../db/sql-list.ts';
import { batchStates, statesFrom } from '../../states/batch-states.ts';
import { FUNDS } from './funds-reason.ts';
import { requeueSql } from './requeue-unfunded.ts';

/**
 * The partner answered INSUFFICIENT_FUNDS for rows of these batches: each batch still paying
 * (or just ended by those rows) is PAUSED for FUNDS, and its rows that failed for lack of
 * funds (no money moved) go back to PENDING under new paymentIds, to be paid on resume. One
 * statement; returns the batches paused now.
 */
const pauseSql = `
WITH paused AS (
  UPDATE "Batch" AS b SET status = ${sqlName(batchStates.paused)}::"BatchStatus", "pauseReason" = ${FUNDS}, "pausedAt" = now(), "pausedBy" = NULL,
    "fundsCheckAt" = now() + $2 * interval '1 millisecond', "finishedAt" = NULL
  WHERE b.id = ANY($1::text[]) AND b.status IN (${sqlList(statesFrom('funds', batchStates.paused))})
  RETURNING b.id
), requeued AS (${requeueSql('$1::text[]')}),
${outboxCte('paused_events', batchEventSelect('batch.paused', 'paused', `'reason', ${FUNDS}::text`))}
SELECT id FROM paused`;

export async function pauseForFunds(query: SqlQuery, batchIds: string[], firstCheckMs: number): Promise<string[]> {
  const rows = await query<{ id: string }>(pauseSql, [batchIds, firstCheckMs]);
  return rows.map((row) => row.id);
}
