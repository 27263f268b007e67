import { PayoutError } from '../../payout/errors.ts';
import type { FundsCheck, FundsPicture } from '../funds/funds-check.ts';
import { amountInWords } from '../../money/money-text.ts';
import { BatchStateError } from './batch-error-codes.ts';

/**
 * Approval weighs the batch against the balance and what batches approved before it (or due
 * before its payAt) still need: refused, in words, when the money is short or the balance
 * cannot be read; undefined when no funds check is configured.
 */
export async function fundsForApproval(
  funds: FundsCheck | undefined,
  batchId: string,
  includeHeld: boolean,
  payAt: Date | null,
): Promise<FundsPicture | undefined> {
  if (funds === undefined) return undefined;
  let picture: FundsPicture;
  try {
    picture = await funds.forApproval(batchId, includeHeld, payAt);
  } catch (error) {
    // Only the partner not giving the balance is "could not be read" (answered by ignoreBalance);
    // a database connection ended under the check is that, and starting anyway would not mend it.
    if (!(error instanceof PayoutError)) throw error;
    throw new BatchStateError(
      'batch.balance-unknown',
      `the balance could not be read (${(error as Error).message}); approve again later, or with ignoreBalance to start anyway`,
    );
  }
  if (picture.shortfallMinor > 0n) {
    throw new BatchStateError(
      'batch.insufficient-funds',
      `${amountInWords(picture.shortfallMinor, 'RUB')} short: this batch and the batches already approved still need ${amountInWords(picture.amountMinor, 'RUB')} plus about ` +
        `${amountInWords(picture.commissionMinor, 'RUB')} commission, and ${amountInWords(picture.availableMinor, 'RUB')} is available. Top up, or approve with ignoreBalance to start anyway (it pauses when the money runs out)`,
    );
  }
  return picture;
}
