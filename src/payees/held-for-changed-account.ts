import type { Batch, Prisma } from '../db/generated/client.ts';
import { BatchItemStatus } from '../db/generated/enums.ts';
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

/** Why a held row is held: it repeats a payment, its payee's account changed, or both. */
export const holdReasons = { repeat: 'REPEAT', accountChanged: 'ACCOUNT_CHANGED' } as const;
export type HoldReason = (typeof holdReasons)[keyof typeof holdReasons];

type HeldRow = { status: string; repeatsPaymentId: string | null; payeeMark: string | null };

/**
 * A held (DUPLICATE) row's reasons, from what the import recorded on it, read as
 * heldRowsIncluded reads them: a changed account by its mark, a repeat by the payment it
 * repeats (a row held before marks existed names none and is a repeat). Empty for a row not held.
 */
export function holdReasonsOf(row: HeldRow): HoldReason[] {
  if (row.status !== BatchItemStatus.DUPLICATE) return [];
  const changed = row.payeeMark === payeeMarks.ACCOUNT_CHANGED;
  return [...(row.repeatsPaymentId !== null || !changed ? [holdReasons.repeat] : []), ...(changed ? [holdReasons.accountChanged] : [])];
}

/** The held rows held for `reason` (among others), as holdReasonsOf decides: the rows filter of the page and the API. */
export function heldForWhere(reason: HoldReason): Prisma.BatchItemWhereInput {
  const changed = { payeeMark: payeeMarks.ACCOUNT_CHANGED };
  return reason === holdReasons.accountChanged
    ? { status: BatchItemStatus.DUPLICATE, ...changed }
    : {
        status: BatchItemStatus.DUPLICATE,
        OR: [{ repeatsPaymentId: { not: null } }, { payeeMark: null }, { payeeMark: { not: payeeMarks.ACCOUNT_CHANGED } }],
      };
}
