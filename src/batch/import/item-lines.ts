import { copyCells, type BulkTable } from '../../db/bulk-insert.ts';
import { waitingStatus } from '../states/row-states.ts';
import type { PendingRow, RowTail } from './row-cells.ts';

/**
 * BatchItem as the import writes it, the cells of each row in this order: those known when
 * the row is read first, then its tail (row-cells.ts), which the chunk's look-ups may change.
 */
export const itemTable: BulkTable = {
  name: 'BatchItem',
  columns: [
    { name: 'batchId', type: 'text' },
    { name: 'line', type: 'integer' },
    { name: 'reference', type: 'text' },
    { name: 'paymentId', type: 'text' },
    { name: 'providerCode', type: 'text' },
    { name: 'amount', type: 'numeric' },
    { name: 'currency', type: 'text' },
    { name: 'fields', type: 'jsonb' },
    { name: 'customFields', type: 'jsonb' },
    { name: 'updatedAt', type: 'timestamptz' },
    { name: 'payeeKey', type: 'text' },
    { name: 'payeeId', type: 'text' },
    { name: 'accountKey', type: 'text' },
    // The tail: RowTail's fields in this order (tailCells).
    { name: 'status', type: '"BatchItemStatus"' },
    { name: 'errorCode', type: 'text' },
    { name: 'errorMessage', type: 'text' },
    // repeatsPaymentId in prisma/schema.prisma: the column keeps its first name.
    { name: 'duplicateOf', type: 'text' },
    { name: 'payeeMark', type: '"PayeeMark"' },
    { name: 'payeeLastPaidAt', type: 'timestamptz' },
  ],
};

const tailCells = (tail: RowTail) =>
  copyCells([tail.status, tail.errorCode, tail.errorMessage, tail.repeats, tail.payeeMark, tail.payeeLastPaidAt]);

/** A payable row's tail as it is read: waiting, no problem, not (yet) held or marked. */
export const payableTail = (): RowTail => ({
  status: waitingStatus,
  errorCode: null,
  errorMessage: null,
  repeats: null,
  payeeMark: null,
  payeeLastPaidAt: null,
});
const PAYABLE_TAIL = tailCells(payableTail());

/** Buffers of chunks written and done with, reused: a chunk's text is about a megabyte. */
const spare: Buffer[] = [];
const SPARE_MAX = 4;
const START_BYTES = 1 << 20;
/** Larger buffers (a chunk of very long rows) are left to the garbage collector. */
const SPARE_LARGEST = 4 << 20;
const NONE = Buffer.alloc(0);

/**
 * One chunk's BatchItem rows as COPY text, encoded into one buffer as they are read. A
 * payable row's place is kept on its PendingRow, so that a row the look-ups hold or mark
 * has its tail written again when the chunk is cut (text()).
 */
export class ItemLines {
  rows = 0;
  /** Taken when the first row comes: validation, which writes nothing, takes none. */
  private buffer: Buffer = NONE;
  private length = 0;

  /** A payable row: its tail may change until the chunk is written. */
  addPayable(head: BulkRowCells, row: PendingRow): void {
    this.append(`${copyCells(head)}\t`);
    row.tailAt = this.length;
    this.append(`${PAYABLE_TAIL}\n`);
    row.lineEnd = this.length;
    this.rows++;
  }

  /** A row that cannot be paid: written as it is. */
  addFinal(head: BulkRowCells, tail: RowTail): void {
    this.append(`${copyCells(head)}\t${tailCells(tail)}\n`);
    this.rows++;
  }

  /** The chunk's text, with the tails the look-ups changed written again. Valid until release(). */
  text(rows: readonly PendingRow[]): Uint8Array {
    const changed = rows.filter((row) => row.tail !== undefined && row.tailAt !== undefined);
    if (changed.length === 0) return this.buffer.subarray(0, this.length);
    const parts: Buffer[] = [];
    let from = 0;
    for (const row of changed) {
      parts.push(this.buffer.subarray(from, row.tailAt), Buffer.from(`${tailCells(row.tail!)}\n`, 'utf8'));
      from = row.lineEnd!;
    }
    parts.push(this.buffer.subarray(from, this.length));
    return Buffer.concat(parts);
  }

  /** The buffer goes back for the next chunk; text() must not be used after. */
  release(): void {
    if (this.buffer !== NONE && spare.length < SPARE_MAX && this.buffer.length <= SPARE_LARGEST) spare.push(this.buffer);
    this.buffer = NONE;
    this.length = 0;
  }

  private append(text: string): void {
    const at = this.length;
    // At most 3 bytes of UTF-8 per UTF-16 unit.
    const needed = at + text.length * 3;
    if (needed > this.buffer.length) {
      const reused = at === 0 && (spare.at(-1)?.length ?? 0) >= needed ? spare.pop() : undefined;
      const grown = reused ?? Buffer.allocUnsafe(Math.max(this.buffer.length * 2, START_BYTES, needed));
      this.buffer.copy(grown, 0, 0, at);
      this.buffer = grown;
    }
    this.length += this.buffer.write(text, at, 'utf8');
  }
}

/** The cells before a row's tail, in itemTable's order. */
export type BulkRowCells = ReadonlyArray<string | null>;
