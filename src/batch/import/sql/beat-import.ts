import type { SqlQuery } from '../../../db/database.ts';
import { batchStates } from '../../states/batch-states.ts';
import { OTHERS_APPROVED } from './find-paying-rows.ts';

/**
 * The import's heartbeat (import-heartbeat.ts): pushes the batch's importHeartbeatAt to the
 * database's now while it is still being imported, and says whether another batch has been
 * approved (find-paying-rows.ts).
 */
const sql = `UPDATE "Batch" SET "importHeartbeatAt" = now() WHERE id = $1 AND status = $2::"BatchStatus" RETURNING id, ${OTHERS_APPROVED} AS "othersApproved"`;

/** Undefined when the batch is no longer being imported (cancelled, or given up after a stall). */
export async function beatImport(query: SqlQuery, batchId: string): Promise<{ othersApproved: boolean } | undefined> {
  const rows = await query<{ id: string; othersApproved: boolean }>(sql, [batchId, batchStates.importing]);
  return rows[0];
}
