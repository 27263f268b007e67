import type { BatchItemStatus, PayeeMark } from '../../db/generated/client.ts';

/**
 * The cells of a row that the chunk's look-ups may still change (held as a repeat, marked
 * for its payee): the last cells of its line in the import's COPY (item-lines.ts), so the
 * rest of the line is encoded as the row is read and only these are written again.
 */
export interface RowTail {
  status: BatchItemStatus;
  errorCode: string | null;
  errorMessage: string | null;
  /** The paymentId of the row it repeats (BatchItem.repeatsPaymentId). */
  repeats: string | null;
  payeeMark: PayeeMark | null;
  payeeLastPaidAt: string | null;
}

/** A payable row read and checked, waiting for its chunk's look-up of earlier payments. */
export interface PendingRow {
  line: number;
  amount: string;
  reference: string | undefined;
  /** The payee's keyed hashes (the stored one first) and the first line of this file it repeats. */
  payeeKeys?: string[];
  sameFileLine?: number | undefined;
  /** Rows with a payee column: the payee's id and the account's keyed hashes (the stored one first). */
  payeeId?: string;
  accountKeys?: string[];
  /** Held as a repeat (validation only, where no line says so). */
  held?: boolean;
  /** Where the row's tail starts and its line ends in the chunk's text; none when nothing is written (validation only). */
  tailAt?: number;
  lineEnd?: number;
  /** Set once a look-up changes the row: its tail is written again. */
  tail?: RowTail;
}
