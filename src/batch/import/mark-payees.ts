import { toMinorUnits } from '../../money/money.ts';
import { ACCOUNT_CHANGED, accountChangedMessage, markOf, payeeMarks, type PaidAccount, type PayeeMark } from '../../payees/payee-marks.ts';
import { rowStates } from '../states/row-states.ts';
import type { PendingRow } from './row-cells.ts';
import { payableTail } from './item-lines.ts';
import type { RowProblem } from './validate-row.ts';

/** How one import's rows with a payee column were marked, and what is held for a changed account. */
export class PayeeTally {
  newPayees = 0;
  changedAccounts = 0;
  knownPayees = 0;
  /** The earliest day a payee held for a changed account was last paid: the summary's "since 27 Oct". */
  changedSince: Date | null = null;
  /**
   * Rows held for a changed account and not also as repeats, and their sum: what the batch
   * counts as changedAccountCount/Amount, apart from heldCount (a row held for both is
   * counted there, and paid only when both are included), so that the counts add up.
   */
  changedOnly = 0;
  changedOnlyMinor = 0n;

  count(mark: PayeeMark, lastPaidAt: Date | null): void {
    if (mark === payeeMarks.NEW_PAYEE) this.newPayees++;
    else if (mark === payeeMarks.KNOWN) this.knownPayees++;
    else {
      this.changedAccounts++;
      if (lastPaidAt !== null && (this.changedSince === null || lastPaidAt < this.changedSince)) this.changedSince = lastPaidAt;
    }
  }
}

/**
 * Each payable row with a payee gets its mark (payees/payee-marks.ts); one whose account
 * changed since the payee was last paid is held (DUPLICATE, like a repeat) with a warning
 * giving the day. `accounts` undefined: no database to ask, nothing is marked.
 */
export function markPayees(
  rows: readonly PendingRow[],
  problems: RowProblem[],
  accounts: Map<string, PaidAccount> | undefined,
  tally: PayeeTally,
): void {
  if (accounts === undefined) return;
  for (const row of rows) {
    if (row.payeeId === undefined || row.accountKeys === undefined) continue;
    const { mark, lastPaidAt } = markOf(accounts.get(row.payeeId), row.accountKeys);
    tally.count(mark, lastPaidAt);
    row.tail = { ...(row.tail ?? payableTail()), payeeMark: mark, payeeLastPaidAt: lastPaidAt?.toISOString() ?? null };
    if (mark !== payeeMarks.ACCOUNT_CHANGED || lastPaidAt === null) continue;
    const message = accountChangedMessage(row.payeeId, lastPaidAt);
    const repeat = row.held === true;
    if (!repeat) {
      tally.changedOnly++;
      tally.changedOnlyMinor += toMinorUnits(row.amount);
    }
    row.tail.status = rowStates.duplicate;
    // A row that also repeats a payment keeps that problem's words; its mark says the rest.
    if (!repeat) {
      row.tail.errorCode = ACCOUNT_CHANGED;
      row.tail.errorMessage = message;
    }
    problems.push({ line: row.line, column: 'payee', code: ACCOUNT_CHANGED, severity: 'warning', message });
  }
}
