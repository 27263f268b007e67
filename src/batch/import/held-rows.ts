import { toMinorUnits } from '../../money/money.ts';
import { utcDay } from '../../money/readable-text.ts';
import { FirstLines } from './read/first-lines.ts';
import type { PayingRow } from './sql/find-paying-rows.ts';
import { ALREADY_PAID_TEMPLATE, repeatedRowState } from '../rows/held-row-words.ts';

/**
 * Held rows: exactly once per person, not only per row (docs/decisions/0010-exactly-once-per-person.md). A row repeats another when both
 * pay the same payee (provider and recipient identity: payee-key.ts, hashed by payees/payee-keys.ts) the same amount, and
 * their references are equal or either has none: a re-exported payroll may lose its
 * reference column, but next month's salary with a new reference is a new payment. A row
 * that repeats one of an approved batch that paid or may still pay (within the window), or
 * an earlier row of the same file, is held (status DUPLICATE: held, repeats a payment): never
 * paid unless the approver includes held rows.
 */
export const SAME_FILE = 'row.duplicate';
/** Same payee and amount under another reference in one file: paid, but worth a look. */
export const SIMILAR = 'row.similar';

export function alreadyPaidMessage(earlier: Pick<PayingRow, 'line' | 'batchId' | 'status' | 'at'>): string {
  const values = [String(earlier.line), earlier.batchId, repeatedRowState(earlier.status), utcDay(earlier.at)];
  return ALREADY_PAID_TEMPLATE.replace(/%s/g, () => values.shift() ?? '');
}

export function sameFileMessage(firstLine: number): string {
  return `repeats line ${firstLine} of this file: the same payee, amount and reference; held back, paid only if the approver includes held rows`;
}

/** Whether an earlier row of this payee is the same payment as the row being read. */
export function repeats(
  earlier: Pick<PayingRow, 'amount' | 'reference'>,
  row: { amount: string; reference?: string | undefined },
): boolean {
  if (toMinorUnits(earlier.amount) !== toMinorUnits(row.amount)) return false;
  return earlier.reference === null || row.reference === undefined || earlier.reference === row.reference;
}

/**
 * The rows of one file seen so far, in a few bytes each (FirstLines): rows with the same
 * reference are already an error of their own (reference.duplicate), so a valid row can
 * only repeat one with the same payee and amount where either has no reference.
 */
export class SameFileRows {
  private readonly any = new FirstLines();
  private readonly unreferenced = new FirstLines();
  /** Most files give every row a reference: until one comes without, there is nothing to look up. */
  private anyUnreferenced = false;

  /**
   * The first line this row repeats (held), or else the first with the same payee and
   * amount under another reference (only said); remembers the row either way.
   */
  check(payee: string, amount: string, reference: string | undefined, line: number): { repeats?: number; similar?: number } {
    const key = `${payee}\u0000${amount}`;
    const any = this.any.firstOrAdd(key, line);
    const repeats = reference === undefined ? any : this.anyUnreferenced ? this.unreferenced.first(key) : undefined;
    if (reference === undefined) {
      this.unreferenced.firstOrAdd(key, line);
      this.anyUnreferenced = true;
    }
    if (repeats !== undefined) return { repeats };
    return any === undefined ? {} : { similar: any };
  }
}
