import { stringify } from 'csv-stringify';
import type { PrismaClient } from '../db/database.ts';
import { maskedRecipient } from './card-data.ts';

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
  'recipient',
  'payment_id',
  'attempt',
  'status',
  'error_code',
  'error_message',
  'transaction_id',
  'rrn',
] as const;

/** One line per row of the batch file with its outcome, in file order. */
export async function* resultRows(prisma: PrismaClient, batchId: string): AsyncGenerator<string[]> {
  yield [...resultColumns];
  let after = -1n;
  for (;;) {
    const items = await prisma.batchItem.findMany({ where: { batchId, id: { gt: after } }, orderBy: { id: 'asc' }, take: PAGE });
    if (items.length === 0) return;
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
        item.amount.toFixed(2),
        item.currency,
        recipient,
        item.paymentId,
        String(item.attempt),
        item.status,
        item.errorCode ?? '',
        item.errorMessage ?? '',
        billing.transactionId ?? '',
        billing.rrn ?? '',
      ].map(neutralise);
    }
    after = items.at(-1)!.id;
  }
}

/** The validation report: every problem with its line, column, code and message. */
export async function* problemRows(prisma: PrismaClient, batchId: string): AsyncGenerator<string[]> {
  yield ['line', 'column', 'severity', 'code', 'message'];
  let after = -1n;
  for (;;) {
    const problems = await prisma.batchProblem.findMany({ where: { batchId, id: { gt: after } }, orderBy: { id: 'asc' }, take: PAGE });
    if (problems.length === 0) return;
    for (const p of problems) {
      yield [p.line === null ? '' : String(p.line), p.column ?? '', p.severity, p.code, p.message].map(neutralise);
    }
    after = problems.at(-1)!.id;
  }
}

/** Rows as CSV text chunks (UTF-8, comma, CRLF, quoted where needed). */
export async function* csvChunks(rows: AsyncIterable<string[]>): AsyncGenerator<string> {
  const stringifier = stringify({ record_delimiter: 'windows' });
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
