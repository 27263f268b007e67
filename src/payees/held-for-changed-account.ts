import type { Batch, Prisma } from '../db/generated/client.ts';
import { payeeMarks } from './payee-marks.ts';

/**
 * Which held rows (DUPLICATE) an approval releases. A row is held for a repeat (it names
 * the payment it repeats) or for a changed account (its mark), or both; it is paid only
 * when the approver included every reason it is held for. So includeHeld keeps its meaning
 * (repeats), and a changed account is never paid by an approver who only included repeats.
 */
export function heldRowsIncluded(choice: { includeHeld: boolean; includeChangedAccounts: boolean }): Prisma.BatchItemWhereInput[] {
  return [
    // Only the rows held for nothing but a changed account (a row held before marks existed is a repeat).
    ...(choice.includeHeld ? [] : [{ repeatsPaymentId: null, payeeMark: payeeMarks.ACCOUNT_CHANGED }]),
    ...(choice.includeChangedAccounts ? [] : [{ OR: [{ payeeMark: null }, { payeeMark: { not: payeeMarks.ACCOUNT_CHANGED } }] }]),
  ];
}

/**
 * The "changed-account rows included" an approval policy weighs (issue 30, part 2): the
 * rows held for a changed account that this approval would pay. Before approval, pass the
 * approver's choice; after it, the batch's recorded choice is used.
 */
export function changedAccountRowsIncluded(
  batch: Pick<Batch, 'changedAccountCount' | 'includeChangedAccounts'>,
  includeChangedAccounts: boolean = batch.includeChangedAccounts,
): number {
  return includeChangedAccounts ? batch.changedAccountCount : 0;
}
