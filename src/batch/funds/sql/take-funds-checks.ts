import type { SqlQuery } from '../../../db/database.ts';
import { sqlName } from '../../../db/sql-list.ts';
import { batchStates } from '../../states/batch-states.ts';
import { FUNDS } from './funds-reason.ts';

/** Batches paused for funds whose balance check is due, taken for `holdMs` so one process checks each. */
export async function takeFundsChecks(query: SqlQuery, holdMs: number): Promise<Array<{ id: string; pausedAt: Date }>> {
  return query(
    `UPDATE "Batch" SET "fundsCheckAt" = now() + $1 * interval '1 millisecond'
     WHERE status = ${sqlName(batchStates.paused)} AND "pauseReason" = ${FUNDS} AND "fundsCheckAt" <= now()
     RETURNING id, "pausedAt"`,
    [holdMs],
  );
}
