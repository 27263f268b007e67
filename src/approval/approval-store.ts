import type { PrismaClient } from '../db/database.ts';
import type { GivenApproval } from './evaluate.ts';

type Writer = Pick<PrismaClient, 'approval'>;

export interface StoredApproval extends GivenApproval {
  includeHeld: boolean;
  validRowsOnly: boolean;
}

/** The one module that writes the Approval table: an approval is added, never changed; lapse is read from `at`. */
export async function addBatchApproval(
  db: Writer,
  approval: { batchId: string; actor: string; role: string | null; at: Date; rowSet: string; includeHeld: boolean; validRowsOnly: boolean },
): Promise<void> {
  await db.approval.create({ data: approval });
}

export async function addPaymentApproval(db: Writer, approval: { paymentId: string; actor: string; role: string | null; at: Date; rowSet: string }): Promise<void> {
  await db.approval.create({ data: approval });
}

export async function batchApprovals(db: Writer, batchId: string): Promise<StoredApproval[]> {
  return db.approval.findMany({
    where: { batchId },
    orderBy: { at: 'asc' },
    select: { actor: true, role: true, at: true, rowSet: true, includeHeld: true, validRowsOnly: true },
  });
}

export async function paymentApprovals(db: Writer, paymentId: string): Promise<GivenApproval[]> {
  return db.approval.findMany({ where: { paymentId }, orderBy: { at: 'asc' }, select: { actor: true, role: true, at: true, rowSet: true } });
}
