import { toMinorUnits } from '../../money/money.ts';
import type { PendingRow, RowTail } from './row-cells.ts';

export type { PendingRow };
import { maskRecipientFields } from '../../log/mask.ts';
import { cellsOfCopyText, type BulkRow, type BulkTable, type BulkWriter } from '../../db/bulk-insert.ts';
import type { CardDataVault } from '../card-data.ts';
import { rowStates } from '../states/row-states.ts';
import { paymentIdFor } from '../ids.ts';
import { redactCardNumbers } from '../../log/card-numbers.ts';
import { quoteCell } from './read/cell-text.ts';
import { FirstLines } from './read/first-lines.ts';
import { SAME_FILE, SIMILAR, SameFileRows, alreadyPaidMessage, repeats, sameFileMessage } from './held-rows.ts';
import { ALREADY_PAID } from '../rows/held-row-words.ts';
import { payeeText } from './payee-key.ts';
import { PayeeKeys } from '../../payees/payee-keys.ts';
import type { PayingRow } from './sql/find-paying-rows.ts';
import { accountText, type PaidAccount } from '../../payees/payee-marks.ts';
import { markPayees, PayeeTally } from './mark-payees.ts';
import type { RowProblem, ValidRow } from './validate-row.ts';
import { ItemLines, itemTable, payableTail } from './item-lines.ts';

/**
 * Rows are written in chunks of this many (one COPY each), so memory stays flat as files
 * grow; the next chunk is read and validated while the previous one is written.
 */
const CHUNK = 2_000;
/** Chunks written at once (on as many connections): measured best at 2 on 2 cores. */
const WRITERS = 2;

const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));

/** A row's cells before its tail, in itemTable's order. */
function headCells(batchId: string, row: PendingRow, valid: ValidRow, fields: string, updatedAt: string): Array<string | null> {
  return [
    batchId,
    String(row.line),
    valid.reference ?? null,
    paymentIdFor(batchId, row.line, 1),
    valid.providerCode,
    valid.amount,
    valid.currency,
    fields,
    json(valid.customFields),
    updatedAt,
    row.payeeKeys?.[0] ?? null,
    row.payeeId ?? null,
    row.accountKeys?.[0] ?? null,
  ];
}

const problemTable: BulkTable = {
  name: 'BatchProblem',
  columns: [
    { name: 'batchId', type: 'text' },
    { name: 'line', type: 'integer' },
    { name: 'column', type: 'text' },
    { name: 'code', type: 'text' },
    { name: 'severity', type: 'text' },
    { name: 'message', type: 'text' },
  ],
};

const problemRow = (batchId: string, p: RowProblem): BulkRow => [
  batchId,
  p.line === null ? null : String(p.line),
  p.column,
  p.code,
  p.severity,
  p.message,
];

/**
 * Counters and buffers of one import; rows and problems go to the database a chunk at a
 * time, the next chunk filled while the previous one is written. Each chunk's payable rows
 * are looked up against the rows of approved batches in one query before they are written
 * (asked as the chunk is cut, and only once another batch was ever approved), and those
 * that repeat a payment are written DUPLICATE (held-rows.ts). Without a
 * batch id (validation only) nothing is written and problems are kept in `report`.
 */
export class ImportState {
  rows = 0;
  validRows = 0;
  totalMinor = 0n;
  emptyRows = 0;
  /** Valid rows held as DUPLICATE, and their sum: counted as each chunk is looked up. */
  heldRows = 0;
  heldMinor = 0n;
  /** The rows with a payee column, by mark, and those held for a changed account (mark-payees.ts). */
  readonly payeeTally = new PayeeTally();
  problems: RowProblem[] = [];
  readonly report: RowProblem[] = [];
  /** The chunk's payable rows, for its look-ups. */
  private pending: PendingRow[] = [];
  /** The chunk's rows as COPY text (nothing is written without a batch id). */
  private lines = new ItemLines();
  /** Rows read into the chunk when nothing is written (validation only). */
  private chunkRows = 0;
  private readonly references = new FirstLines();
  private readonly sameFile = new SameFileRows();
  /** Chunks being written; a failed write fails the import at the next chunk or at the end. */
  private readonly writing = new Set<Promise<void>>();
  private failure: { error: unknown } | undefined;
  private stopped = false;
  private readonly updatedAt = new Date().toISOString();
  /**
   * Whether another batch was ever approved: until then no row can repeat a payment and
   * no chunk is looked up (set by the caller, before the first row and as it learns more).
   */
  othersApproved = false;

  constructor(
    readonly batchId: string | undefined,
    private readonly bulk: BulkWriter,
    private readonly cardData: CardDataVault,
    /** Without it (validation with no database) payees are compared in memory only, by their text. */
    private readonly payees: PayeeKeys | undefined,
    /** Rows of approved batches with any of these payee keys; none when the database is not at hand. */
    private readonly payingRows: ((keys: string[]) => Promise<PayingRow[]>) | undefined,
    /** The account each payee was last paid to; without it (no database) rows with a payee are not marked. */
    private readonly paidAccounts?: (payeeIds: string[]) => Promise<Map<string, PaidAccount>>,
  ) {}

  /** The batch stopped being VALIDATING: the import stops at its next row. */
  abandon(): void {
    this.stopped = true;
  }

  get abandoned(): boolean {
    return this.stopped;
  }

  /** Rows with no cell filled (trailing `;;;;` rows of spreadsheet exports): skipped, and said once. */
  skippedEmpty(lines: number[]): void {
    this.emptyRows = lines.length;
    if (lines.length === 0) return;
    const shown = lines.slice(0, 10).join(', ') + (lines.length > 10 ? ', …' : '');
    this.record({
      line: null,
      column: null,
      code: 'row.empty',
      severity: 'warning',
      message: `${lines.length} ${lines.length === 1 ? 'row' : 'rows'} with no cell filled skipped (${lines.length === 1 ? 'line' : 'lines'} ${shown})`,
    });
  }

  fileProblem(code: string, message: string): void {
    this.record({ line: null, column: null, code, severity: 'error', message });
  }

  /** Every problem passes here: cells may hold card numbers, problems are shown to many. */
  record(problem: RowProblem): RowProblem {
    const safe = {
      ...problem,
      column: problem.column === null ? null : redactCardNumbers(problem.column),
      message: redactCardNumbers(problem.message),
    };
    this.problems.push(safe);
    return safe;
  }

  /** Returns a promise only when a chunk is full: it resolves once the chunk before it is written. */
  add(line: number, reference: string | undefined, valid: ValidRow | undefined, problems: RowProblem[]): Promise<void> | undefined {
    this.rows++;
    if (reference !== undefined) {
      const first = this.references.firstOrAdd(reference, line);
      if (first !== undefined) {
        problems.push({
          line,
          column: 'reference',
          code: 'reference.duplicate',
          severity: 'error',
          message: `${quoteCell(reference)} is also on line ${first}`,
        });
      }
    }
    let firstError: RowProblem | undefined;
    for (const problem of problems) {
      const safe = this.record(problem);
      if (firstError === undefined && safe.severity === 'error') firstError = safe;
    }
    if (valid !== undefined) {
      const payable = firstError === undefined;
      if (payable) {
        this.validRows++;
        this.totalMinor += toMinorUnits(valid.amount);
      }
      const row: PendingRow = { line, amount: valid.amount, reference: valid.reference };
      if (payable) {
        const payee = payeeText(valid);
        row.payeeKeys = this.payees?.candidates(payee) ?? [payee];
        // The stored key stands for the payee: 32 characters to remember instead of the text.
        const same = this.sameFile.check(row.payeeKeys[0]!, valid.amount, valid.reference, line);
        row.sameFileLine = same.repeats;
        if (valid.payeeId !== undefined) {
          const account = accountText(valid.providerCode, valid.fields);
          row.payeeId = valid.payeeId;
          row.accountKeys = this.payees?.candidates(account) ?? [account];
        }
        if (same.similar !== undefined) {
          this.record({
            line,
            column: null,
            code: SIMILAR,
            severity: 'warning',
            message: `same payee and amount as line ${same.similar}, under another reference`,
          });
        }
      }
      if (this.batchId !== undefined) {
        const fields = payable ? this.cardData.seal(valid.fields, { batchId: this.batchId, line }) : maskRecipientFields(valid.fields);
        const head = headCells(this.batchId, row, valid, JSON.stringify(fields), this.updatedAt);
        if (payable && this.mayChange(row)) {
          this.lines.addPayable(head, row);
          this.pending.push(row);
        } else if (payable) {
          this.lines.addFinal(head, payableTail());
        } else {
          const tail: RowTail = {
            ...payableTail(),
            status: rowStates.invalid,
            errorCode: firstError?.code ?? null,
            errorMessage: firstError?.message ?? null,
          };
          this.lines.addFinal(head, tail);
        }
      } else if (payable) {
        this.chunkRows++;
        if (this.mayChange(row)) this.pending.push(row);
      }
    }
    const chunkRows = this.batchId === undefined ? this.chunkRows : this.lines.rows;
    if (chunkRows >= CHUNK || this.problems.length >= CHUNK) return this.nextChunk();
    return undefined;
  }

  /**
   * Whether the chunk's look-ups may hold or mark this payable row: a repeat of this file,
   * a payee named, or another batch approved. Only those rows are kept until the chunk is
   * cut; the rest are final as read, so a million-row file keeps almost nothing per row
   * alive across the young generation's collections (what made V8 grow it to its largest).
   * A batch approved after this row was read is caught at this batch's approval
   * (hold-approved-repeats.ts), as one approved after the last heartbeat is.
   */
  private mayChange(row: PendingRow): boolean {
    if (row.sameFileLine !== undefined) return true;
    if (row.payeeId !== undefined && this.paidAccounts !== undefined) return true;
    return this.othersApproved && this.payingRows !== undefined;
  }

  /** Once no write is under way, whether one failed or not. */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.writing]);
  }

  /** Everything buffered written, and every write before it. */
  async flush(): Promise<void> {
    await this.nextChunk();
    await this.idle();
    this.throwFailure();
  }

  /**
   * Hands the buffered rows to the writer, waiting while WRITERS chunks are being written:
   * the next chunk is read and validated meanwhile, and PostgreSQL loads chunks on as many
   * connections. Resolves once these rows are being written.
   */
  private async nextChunk(): Promise<void> {
    const rows = this.pending;
    const problems = this.problems;
    const lines = this.lines;
    this.pending = [];
    this.problems = [];
    this.chunkRows = 0;
    if (this.batchId !== undefined && lines.rows > 0) this.lines = new ItemLines();
    // Asked before waiting for a writer: the answer comes while earlier chunks are written.
    const earlier = this.lookUp(rows);
    const accounts = this.lookUpAccounts(rows);
    if (this.batchId === undefined) {
      this.holdRepeats(rows, problems, await earlier);
      markPayees(rows, problems, await accounts, this.payeeTally);
      // One at a time: spreading an array this long into push() can overflow the stack.
      for (const problem of problems) this.report.push(problem);
      return;
    }
    if (lines.rows === 0 && problems.length === 0) return;
    const batchId = this.batchId;
    // Seen by the write below; not an unhandled rejection while it waits for a writer.
    earlier.catch(() => {});
    accounts.catch(() => {});
    while (this.writing.size >= WRITERS) await Promise.race(this.writing);
    this.throwFailure();
    const write = (async () => {
      try {
        this.holdRepeats(rows, problems, await earlier);
        markPayees(rows, problems, await accounts, this.payeeTally);
        const text = lines.text(rows);
        if (this.bulk.text !== undefined) await this.bulk.text(itemTable, text);
        else await this.bulk(itemTable, cellsOfCopyText(text));
        await this.bulk(
          problemTable,
          problems.map((problem) => problemRow(batchId, problem)),
        );
      } catch (error) {
        // Seen by the next chunk or by flush(); not an unhandled rejection meanwhile.
        this.failure ??= { error };
      } finally {
        lines.release();
      }
    })();
    this.writing.add(write);
    void write.then(() => this.writing.delete(write));
  }

  /** One query for the chunk's payees: the rows of approved batches paying any of them, by payee key. */
  private async lookUp(rows: PendingRow[]): Promise<Map<string, PayingRow[]>> {
    const earlier = new Map<string, PayingRow[]>();
    if (this.payingRows === undefined || !this.othersApproved) return earlier;
    const keys = new Set<string>();
    for (const row of rows) {
      if (row.payeeKeys !== undefined && row.sameFileLine === undefined) for (const key of row.payeeKeys) keys.add(key);
    }
    for (const paying of keys.size === 0 ? [] : await this.payingRows([...keys])) {
      const key = paying.payeeKey.trimEnd();
      earlier.set(key, [...(earlier.get(key) ?? []), paying]);
    }
    return earlier;
  }

  /** One query for the chunk's payees named by id: the account each was last paid to. */
  private async lookUpAccounts(rows: PendingRow[]): Promise<Map<string, PaidAccount> | undefined> {
    if (this.paidAccounts === undefined) return undefined;
    const ids = new Set<string>();
    for (const row of rows) if (row.payeeId !== undefined) ids.add(row.payeeId);
    return ids.size === 0 ? new Map() : this.paidAccounts([...ids]);
  }

  /** Each payable row that repeats an earlier row of this file or a row of an approved batch becomes DUPLICATE with a warning naming it. */
  private holdRepeats(rows: PendingRow[], problems: RowProblem[], earlier: Map<string, PayingRow[]>): void {
    for (const row of rows) {
      if (row.payeeKeys === undefined) continue;
      if (row.sameFileLine !== undefined) {
        this.hold(
          row,
          problems,
          SAME_FILE,
          sameFileMessage(row.sameFileLine),
          this.batchId === undefined ? undefined : paymentIdFor(this.batchId, row.sameFileLine, 1),
        );
        continue;
      }
      if (earlier.size === 0) continue;
      const match = row.payeeKeys.flatMap((key) => earlier.get(key) ?? []).find((paying) => repeats(paying, row));
      if (match !== undefined) this.hold(row, problems, ALREADY_PAID, alreadyPaidMessage(match), match.paymentId);
    }
  }

  private hold(row: PendingRow, problems: RowProblem[], code: string, message: string, repeats: string | undefined): void {
    row.tail = {
      ...(row.tail ?? payableTail()),
      status: rowStates.duplicate,
      errorCode: code,
      errorMessage: message,
      repeats: repeats ?? null,
    };
    row.held = true;
    this.heldRows++;
    this.heldMinor += toMinorUnits(row.amount);
    problems.push({ line: row.line, column: null, code, severity: 'warning', message });
  }

  private throwFailure(): void {
    if (this.failure !== undefined) throw this.failure.error;
  }
}
