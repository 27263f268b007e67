import type { SqlQuery } from '../../../db/database.ts';
import { BatchItemStatus } from '../../../db/generated/enums.ts';
import { cancelCodes, cancelledStatus, waitingStatus } from '../../states/row-states.ts';

/** Rows an import wrote to be paid: waiting, or held back as repeats until an approver includes them. */
const importedToPay: readonly BatchItemStatus[] = [waitingStatus, BatchItemStatus.DUPLICATE];

const sql = `
UPDATE "BatchItem" SET status = $2::"BatchItemStatus", "errorCode" = $4, "errorMessage" = 'the batch was cancelled while its file was read', "finishedAt" = now(), "updatedAt" = now()
WHERE "batchId" = $1 AND status = ANY($3::text[]::"BatchItemStatus"[])`;

/** A batch cancelled (or given up by the sweep) while its file was read: none of the rows written is ever paid. */
export async function cancelImportedRows(query: SqlQuery, batchId: string): Promise<void> {
  await query(sql, [batchId, cancelledStatus, importedToPay, cancelCodes.notSent]);
}
