import { fromMinorUnits } from '../../money/money.ts';
import type { ImportState } from './import-state.ts';
import type { RowProblem } from './validate-row.ts';

export interface ValidationReport {
  payable: boolean;
  rowCount: number;
  validCount: number;
  invalidCount: number;
  errorCount: number;
  warningCount: number;
  /** Rows with no cell filled, skipped (a `row.empty` warning lists them). */
  emptyRowCount: number;
  /** Valid rows that repeat a payment (or an earlier row) and would be held back, and their sum. */
  heldCount: number;
  heldAmount: string;
  /** Valid rows held because their payee's account changed since the last payment (and not also as repeats: those are in heldCount), and their sum. */
  changedAccountCount: number;
  changedAccountAmount: string;
  /** Rows with a payee column, by mark (none are marked without a database). */
  payeeMarks: { newPayees: number; changedAccounts: number; knownPayees: number; changedSince: Date | null };
  totalAmount: string;
  problems: RowProblem[];
}

/** What `payout batch validate` reports of a file read without writing it. */
export function reportOf(state: ImportState): ValidationReport {
  const problems = state.report;
  const errors = problems.filter((p) => p.severity === 'error').length;
  const tally = state.payeeTally;
  return {
    payable: errors === 0,
    rowCount: state.rows,
    validCount: state.validRows,
    invalidCount: state.rows - state.validRows,
    errorCount: errors,
    warningCount: problems.length - errors,
    emptyRowCount: state.emptyRows,
    heldCount: state.heldRows,
    heldAmount: fromMinorUnits(state.heldMinor),
    changedAccountCount: tally.changedOnly,
    changedAccountAmount: fromMinorUnits(tally.changedOnlyMinor),
    payeeMarks: {
      newPayees: tally.newPayees,
      changedAccounts: tally.changedAccounts,
      knownPayees: tally.knownPayees,
      changedSince: tally.changedSince,
    },
    totalAmount: fromMinorUnits(state.totalMinor),
    problems,
  };
}
