import type { PrismaClient } from '../../db/database.ts';
import { BatchItemStatus } from '../../db/generated/enums.ts';
import type { HeldChoice, RowSelection } from '../../approval/approvals.ts';
import { heldRowsIncluded } from '../../payees/held-for-changed-account.ts';
import { payeeMarks } from '../../payees/payee-marks.ts';
import { rowStates } from '../states/row-states.ts';

/**
 * The rows a batch approval pays: every row waiting, and the held rows its choice releases,
 * by id. The fingerprint an approval records and the release that follows read the same ids,
 * so the rows paid are exactly the rows approved (decision 0029).
 */
export async function selectApprovalRows(tx: Pick<PrismaClient, 'batchItem'>, batchId: string, held: HeldChoice): Promise<RowSelection> {
  if (!held.includeHeld && !held.includeChangedAccounts) return { statuses: [rowStates.pending], heldIds: [], changedAccountRows: 0 };
  const rows = await tx.batchItem.findMany({
    where: { batchId, status: BatchItemStatus.DUPLICATE, AND: heldRowsIncluded(held) },
    select: { id: true, payeeMark: true },
    orderBy: { id: 'asc' },
  });
  return {
    statuses: [rowStates.pending],
    heldIds: rows.map((r) => r.id),
    changedAccountRows: rows.filter((r) => r.payeeMark === payeeMarks.ACCOUNT_CHANGED).length,
  };
}
