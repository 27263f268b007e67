import { PassThrough } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { PrismaClient } from '../../db/database.ts';
import { toMinorUnits } from '../../money/money.ts';
import { decimalText } from '../../money/money-wire.ts';
import { maskedRecipient } from '../card-data.ts';
import type { TrackedStatus } from '../../db/generated/enums.ts';
import { paymentStates } from '../../payments/status.ts';
import { outcomeWords } from './outcome-words.ts';
import { cancelCodes, cancelledAfterCreateMessage, cancelledStatus } from '../states/row-states.ts';

/** Rows are read this many at a time, so an export of any size keeps memory flat. */
const PAGE = 1_000;

/**
 * A cell a spreadsheet would run as a formula (=, +, -, @, tab, carriage return first)
 * gets a leading apostrophe, so opening a report never executes what a row contained.
 */
export function neutralise(cell: string): string {
  return /^[=+\-@\t\r]/.test(cell) ? `'${cell}` : cell;
}

export const resultColumns = [
  'line',
  'reference',
  'provider',
  'amount',
  'currency',
  'commission',
  'recipient',
  'payment_id',
  'attempt',
  'status',
  'error_code',
  'error_message',
  'transaction_id',
  'rrn',
  // Appended, so that readers of the columns above by position keep working.
  'payee',
  'payee_mark',
  'payee_last_paid_at',
  // The status and its error in words (outcome-words.ts), for a person reading the sheet.
  'outcome',
] as const;

export const problemColumns = ['line', 'column', 'severity', 'code', 'message'] as const;

/**
 * Columns that are numbers in a spreadsheet; every other column is text. Amounts are
 * written by the export as decimal strings with a `.` and two decimals.
 */
const numberColumns: Readonly<Record<string, 'money' | 'integer'>> = {
  line: 'integer',
  attempt: 'integer',
  batch_row: 'integer',
  amount: 'money',
  commission: 'money',
};

export type ReportKind = 'results' | 'problems';

/**
 * `csv`: UTF-8, `,`, `.` decimals, CRLF (what programs read). `excel`: what a spreadsheet
 * set to a decimal-comma locale (ru, de, fr …) opens in columns: UTF-8 with a BOM, `;`,
 * decimal comma, CRLF. `xlsx`: a workbook, amounts as numbers with two decimals shown.
 */
export const exportFormats = ['csv', 'excel', 'xlsx'] as const;
export type ExportFormat = (typeof exportFormats)[number];

export const exportMediaTypes: Readonly<Record<ExportFormat, string>> = {
  csv: 'text/csv; charset=utf-8',
  excel: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

/** The report's rows as stored, header first, card numbers masked; not yet made safe for a spreadsheet. */
export function reportRows(prisma: PrismaClient, batchId: string, kind: ReportKind): AsyncGenerator<string[]> {
  return kind === 'results' ? plainResultRows(prisma, batchId) : plainProblemRows(prisma, batchId);
}

/** One line per row of the batch file with its outcome, in file order (cells neutralised for CSV). */
export async function* resultRows(prisma: PrismaClient, batchId: string): AsyncGenerator<string[]> {
  for await (const row of plainResultRows(prisma, batchId)) yield row.map(neutralise);
}

/** The validation report: every problem with its line, column, code and message (cells neutralised for CSV). */
export async function* problemRows(prisma: PrismaClient, batchId: string): AsyncGenerator<string[]> {
  for await (const row of plainProblemRows(prisma, batchId)) yield row.map(neutralise);
}

async function* plainResultRows(prisma: PrismaClient, batchId: string): AsyncGenerator<string[]> {
  yield [...resultColumns];
  let after = -1n;
  for (;;) {
    const items = await prisma.batchItem.findMany({ where: { batchId, id: { gt: after } }, orderBy: { id: 'asc' }, take: PAGE });
    if (items.length === 0) return;
    const createdNotExecuted = await paymentsOfCancelledRows(prisma, items);
    const charged = await commissionsCharged(prisma, items);
    for (const item of items) {
      const billing = (item.billingDetails ?? {}) as { transactionId?: string; rrn?: string };
      // Masked fields only; the sealed recipient (while a row may still be paid) is never exported.
      const recipient = Object.entries(maskedRecipient(item.fields))
        .map(([key, value]) => `${key}=${value}`)
        .join('; ');
      yield [
        String(item.line),
        item.reference ?? '',
        item.providerCode,
        decimalText(item.amount),
        item.currency,
        charged.get(item.paymentId) ?? '',
        recipient,
        item.paymentId,
        String(item.attempt),
        item.status,
        item.errorCode ?? '',
        createdNotExecuted.has(item.paymentId) ? cancelledRowMessage(createdNotExecuted.get(item.paymentId)!) : (item.errorMessage ?? ''),
        billing.transactionId ?? '',
        billing.rrn ?? '',
        item.payeeId ?? '',
        // The mark's name, like the status column: NEW_PAYEE, ACCOUNT_CHANGED or KNOWN (empty without a payee).
        item.payeeMark ?? '',
        item.payeeLastPaidAt?.toISOString() ?? '',
        outcomeWords(item.status, item.errorCode),
      ];
    }
    after = items.at(-1)!.id;
  }
}

/**
 * The commission the partner charged for a page's rows (one query), from the gateway's
 * Payment records: only a paid (COMPLETED) payment is charged, so a column of them adds up to
 * Batch.commissionCharged; a row not paid has an empty cell.
 */
async function commissionsCharged(prisma: PrismaClient, items: ReadonlyArray<{ paymentId: string }>): Promise<Map<string, string>> {
  const payments = await prisma.payment.findMany({
    where: { paymentId: { in: items.map((i) => i.paymentId) }, status: paymentStates.completed, commission: { not: null } },
    select: { paymentId: true, commission: true },
  });
  return new Map(payments.map((p) => [p.paymentId, decimalText(p.commission!)]));
}

interface CancelledPayment {
  status: TrackedStatus;
  expiresAt: Date | null;
}

/** The payments of a page's rows cancelled after their create (one query): what became of them upstream. */
async function paymentsOfCancelledRows(
  prisma: PrismaClient,
  items: ReadonlyArray<{ status: string; errorCode: string | null; paymentId: string }>,
): Promise<Map<string, CancelledPayment>> {
  const paymentIds = items.filter((i) => i.status === cancelledStatus && i.errorCode === cancelCodes.afterCreate).map((i) => i.paymentId);
  if (paymentIds.length === 0) return new Map();
  const payments = await prisma.payment.findMany({
    where: { paymentId: { in: paymentIds } },
    select: { paymentId: true, status: true, expiresAt: true },
  });
  const found = new Map<string, CancelledPayment>(payments.map((p) => [p.paymentId, p]));
  // A row whose payment record is missing still says what the row knows.
  for (const paymentId of paymentIds) if (!found.has(paymentId)) found.set(paymentId, { status: paymentStates.ready, expiresAt: null });
  return found;
}

/** A payment created here and left READY that is in one of these was executed upstream. */
const executedUpstream: readonly TrackedStatus[] = [paymentStates.inProgress, paymentStates.completed, paymentStates.failed];

/**
 * A row cancelled after its create, as the report says it at the time of the export: open
 * upstream until its expiry, expired after; executed upstream all the same is said plainly
 * (the row stays CANCELLED; the reconciliation reports it for a person).
 */
function cancelledRowMessage(payment: CancelledPayment): string {
  if (executedUpstream.includes(payment.status)) {
    return `created upstream and cancelled here, but executed upstream all the same (${payment.status}): see the reconciliation`;
  }
  const expired = payment.status === paymentStates.expired || (payment.expiresAt !== null && payment.expiresAt.getTime() <= Date.now());
  if (expired) return `created upstream, not executed, expired at ${payment.expiresAt?.toISOString() ?? 'an unknown time'}`;
  return cancelledAfterCreateMessage(payment.expiresAt);
}

async function* plainProblemRows(prisma: PrismaClient, batchId: string): AsyncGenerator<string[]> {
  yield [...problemColumns];
  let after = -1n;
  for (;;) {
    const problems = await prisma.batchProblem.findMany({ where: { batchId, id: { gt: after } }, orderBy: { id: 'asc' }, take: PAGE });
    if (problems.length === 0) return;
    for (const p of problems) yield [p.line === null ? '' : String(p.line), p.column ?? '', p.severity, p.code, p.message];
    after = problems.at(-1)!.id;
  }
}

/** Rows as CSV text chunks (UTF-8, comma, CRLF, quoted where needed). */
export function csvChunks(rows: AsyncIterable<string[]>): AsyncGenerator<string> {
  return delimited(rows, ',');
}

async function* delimited(rows: AsyncIterable<string[]>, delimiter: ',' | ';'): AsyncGenerator<string> {
  const stringifier = stringify({ record_delimiter: 'windows', delimiter });
  const output: string[] = [];
  stringifier.on('data', (chunk: Buffer | string) => output.push(String(chunk)));
  for await (const row of rows) {
    stringifier.write(row);
    if (output.length > 0) yield output.splice(0).join('');
  }
  stringifier.end();
  await new Promise((resolve) => stringifier.once('end', resolve));
  if (output.length > 0) yield output.splice(0).join('');
}

/**
 * A report (plain rows from `reportRows`, header first) in the chosen format, as chunks
 * to write in order. The `excel` dialect starts with a BOM; plain `csv` does not.
 */
export async function* exportChunks(rows: AsyncIterable<string[]>, format: ExportFormat): AsyncGenerator<Buffer> {
  if (format === 'xlsx') {
    yield* xlsxChunks(rows);
    return;
  }
  if (format === 'excel') yield Buffer.from('\uFEFF', 'utf8');
  const cells = format === 'excel' ? decimalComma(rows) : rows;
  for await (const text of delimited(neutralised(cells), format === 'excel' ? ';' : ',')) yield Buffer.from(text, 'utf8');
}

async function* neutralised(rows: AsyncIterable<string[]>): AsyncGenerator<string[]> {
  for await (const row of rows) yield row.map(neutralise);
}

/** Amount columns written with a decimal comma: "1500.50" -> "1500,50". */
async function* decimalComma(rows: AsyncIterable<string[]>): AsyncGenerator<string[]> {
  let money: number[] | undefined;
  for await (const row of rows) {
    if (money === undefined) {
      money = row.flatMap((name, index) => (numberColumns[name] === 'money' ? [index] : []));
      yield row;
      continue;
    }
    const copy = [...row];
    for (const index of money) copy[index] = copy[index]!.replace('.', ',');
    yield copy;
  }
}

/** Amounts a double holds to the cent: every integer number of minor units up to 2^53. */
const MAX_EXACT_MINOR = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * A cell's value in the workbook. Amounts are worked out in integer minor units; only the
 * cell value itself is a double, the one nearest to the exact amount, which every
 * spreadsheet shows as that amount. (Amounts beyond 2^53 minor units stay text.)
 */
export function xlsxValue(kind: 'money' | 'integer' | undefined, text: string): string | number {
  if (text === '' || kind === undefined) return text;
  if (kind === 'integer') return /^\d{1,15}$/.test(text) ? Number(text) : text;
  const minor = toMinorUnits(text);
  return minor <= MAX_EXACT_MINOR ? Number(minor) / 100 : text;
}

/** Streamed: rows are committed as they come, so a large batch never sits in memory whole. */
async function* xlsxChunks(rows: AsyncIterable<string[]>): AsyncGenerator<Buffer> {
  const stream = new PassThrough();
  let stopped = false;
  // Loaded here, not at start-up: exceljs and what it pulls in were 5-14 % of a gateway's start.
  const { default: ExcelJS } = await import('exceljs');
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream, useStyles: true, useSharedStrings: false });
  const written = (async () => {
    const sheet = workbook.addWorksheet('Report', { views: [{ state: 'frozen', ySplit: 1 }] });
    let kinds: Array<'money' | 'integer' | undefined> | undefined;
    for await (const row of rows) {
      if (stopped) return;
      if (kinds === undefined) {
        kinds = row.map((name) => numberColumns[name]);
        sheet.columns = row.map((name, index) => ({
          key: name,
          width: Math.max(10, name.length + 2),
          ...(kinds![index] === 'money' ? { style: { numFmt: '#,##0.00' } } : {}),
        }));
        const header = sheet.addRow(row);
        header.font = { bold: true };
        header.commit();
        continue;
      }
      sheet.addRow(row.map((cell, index) => xlsxValue(kinds![index], cell))).commit();
    }
    sheet.commit();
    await workbook.commit();
  })();
  // A failure while writing must end the reading below, not leave it waiting.
  written.catch((error: unknown) => stream.destroy(error as Error));
  try {
    for await (const chunk of stream) yield chunk as Buffer;
    await written;
  } finally {
    // The reader went away (a client hung up): stop reading rows for nobody.
    stopped = true;
    stream.destroy();
  }
}
