import type { SqlQuery } from '../../../db/database.ts';
import { sqlList } from '../../../db/sql-list.ts';
import { payingStates } from '../../states/batch-states.ts';

/**
 * Whether a worker may still send for a row it holds: its lease (token and expiry, on the
 * database clock) and a batch that still pays. Asked before a send that no durable write has
 * just allowed (decision 0027); one indexed row and its batch.
 */
const sql = `
SELECT EXISTS (
  SELECT 1 FROM "BatchItem" AS i JOIN "Batch" AS b ON b.id = i."batchId"
  WHERE i.id = $1::bigint AND i."leaseToken" = $2::uuid AND i."leaseExpiresAt" > now() AND b.status IN (${sqlList(payingStates)})
) AS ok`;

export async function maySend(query: SqlQuery, row: { id: string; leaseToken: string }): Promise<boolean> {
  const rows = await query<{ ok: boolean }>(sql, [row.id, row.leaseToken]);
  return rows[0]?.ok === true;
}
