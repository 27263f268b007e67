import { randomBytes } from 'node:crypto';

/** Batch ids are short so that `{batchId}-{line}-r{attempt}` fits the 36-character paymentId. */
export function newBatchId(): string {
  return `b${randomBytes(8).toString('hex').slice(0, 11)}`;
}

/**
 * The paymentId of a row's attempt: `{batchId}-{line}`, then `-r{attempt}` from the second
 * attempt on. Fixed before any call (never pay twice): the TypeScript and the SQL below are
 * built from these two separators, so the two can never disagree about a row's id.
 */
const LINE = '-';
const ATTEMPT = '-r';

export function paymentIdFor(batchId: string, line: number, attempt: number): string {
  return attempt === 1 ? `${batchId}${LINE}${line}` : `${batchId}${LINE}${line}${ATTEMPT}${attempt}`;
}

/** paymentIdFor of a later attempt (2 or more) as a SQL expression over the given column expressions. */
export function retriedPaymentIdSql(batchId: string, line: string, attempt: string): string {
  return `${batchId} || '${LINE}' || ${line} || '${ATTEMPT}' || ${attempt}`;
}
