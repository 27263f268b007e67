import type { SqlQuery } from '../../../db/database.ts';
import { sqlList } from '../../../db/sql-list.ts';
import { sendingItemStatuses } from '../../states/row-states.ts';

/**
 * Rows of a batch whose worker may still send for them: written CREATING or EXECUTING (the
 * write before a create or an execute) and held under a lease that has not ended on the
 * database clock (decision 0027).
 */
const sql = `
SELECT count(*)::int AS count FROM "BatchItem"
WHERE "batchId" = $1 AND status IN (${sqlList(sendingItemStatuses)}) AND "leaseToken" IS NOT NULL AND "leaseExpiresAt" > now()`;

export async function countSendingRows(query: SqlQuery, batchId: string): Promise<number> {
  const rows = await query<{ count: number }>(sql, [batchId]);
  return rows[0]?.count ?? 0;
}
