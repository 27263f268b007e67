import type { SqlQuery } from '../../../db/database.ts';
import { outboxCte } from '../../../outbound/index.ts';
import { batchEventSelect } from '../../events/sql/batch-events-sql.ts';
import { sqlList, sqlName } from '../../../db/sql-list.ts';
import { batchStates, statesFrom } from '../../states/batch-states.ts';
import { FUNDS } from './funds-reason.ts';
import { requeueSql } from './requeue-unfunded.ts';

/** The balance covers the rest: running again, by itself. Returns whether it resumed. */
export async function resumeFunded(query: SqlQuery, batchId: string): Promise<boolean> {
  const rows = await query(
    `WITH resumed AS (
       UPDATE "Batch" SET status = ${sqlName(batchStates.running)}::"BatchStatus", shortfall = NULL, "fundsCheckAt" = NULL
       WHERE id = $1 AND status IN (${sqlList(statesFrom('funds', batchStates.running))}) AND "pauseReason" = ${FUNDS}
       RETURNING id
     ), requeued AS (${requeueSql('ARRAY(SELECT id FROM resumed)')}),
     ${outboxCte('resumed_events', batchEventSelect('batch.resumed', 'resumed', `'by', 'funds'`))}
     SELECT id FROM resumed`,
    [batchId],
  );
  return rows.length > 0;
}
