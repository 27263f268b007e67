/**
 * Where a row's cells sit in the import's COPY of BatchItem (import-state.ts itemTable's
 * column order): shared by the import state and the steps that mark rows (held, payees),
 * so neither imports the other. Change them with itemTable.
 */
export const STATUS_CELL = 9;
export const ERROR_CODE_CELL = 10;
export const ERROR_MESSAGE_CELL = 11;
export const REPEATS_CELL = 14;
export const PAYEE_MARK_CELL = 17;
export const PAYEE_LAST_PAID_CELL = 18;

/** A row read and checked, waiting for its chunk's look-up of earlier payments. */
export interface PendingRow {
  line: number;
  amount: string;
  reference: string | undefined;
  /**
   * The row as it will be written (itemTable's cells), made as the row is read so that the
   * parsed row can be collected at once; holding it changes its status and error cells.
   * None when nothing is written (validation only).
   */
  cells?: Array<string | null>;
  /** Payable rows only: the payee's keyed hashes (the stored one first) and the first line of this file it repeats. */
  payeeKeys?: string[];
  sameFileLine?: number | undefined;
  /** Payable rows with a payee column: the payee's id and the account's keyed hashes (the stored one first). */
  payeeId?: string;
  accountKeys?: string[];
  /** Held as a repeat (validation only, where no cells say so). */
  held?: boolean;
}
