import type { PrismaClient } from '../db/database.ts';
import type { GivenApproval } from './evaluate.ts';

type Writer = Pick<PrismaClient, 'approval'>;

/** A batch approval and the whole choice it agreed to (decision 0029). */
export interface StoredApproval extends GivenApproval {
  includeHeld: boolean;
  includeChangedAccounts: boolean;
  validRowsOnly: boolean;
}

/** The one module that writes the Approval table: an approval is added, never changed; lapse is read from `at`. */
export async function addBatchApproval(db: Writer, approval: StoredApproval & { batchId: string }): Promise<void> {
  await db.approval.create({ data: approval });
}

export async function addPaymentApproval(db: Writer, approval: GivenApproval & { paymentId: string }): Promise<void> {
  await db.approval.create({ data: approval });
}

export async function batchApprovals(db: Writer, batchId: string): Promise<StoredApproval[]> {
  return db.approval.findMany({
    where: { batchId },
    orderBy: [{ at: 'asc' }, { id: 'asc' }],
    select: {
      actor: true,
      role: true,
      at: true,
      rowSet: true,
      payAt: true,
      includeHeld: true,
      includeChangedAccounts: true,
      validRowsOnly: true,
    },
  });
}

export async function paymentApprovals(db: Writer, paymentId: string): Promise<GivenApproval[]> {
  return db.approval.findMany({
    where: { paymentId },
    orderBy: [{ at: 'asc' }, { id: 'asc' }],
    select: { actor: true, role: true, at: true, rowSet: true, payAt: true },
  });
}
