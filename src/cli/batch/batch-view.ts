import { BatchItemStatus, BatchStatus } from '../../db/generated/enums.ts';
import { formerHeldNames, table } from '../output.ts';
import { localAmount } from '../../money/money-text.ts';
import { countOf, shortDayText, timeText } from './words.ts';
import { approvalsText, pendingText, PENDING_APPROVAL_FIELDS, type ApprovalsView } from './approvals-text.ts';

/** The Batch fields every batch command reads from the gateway, for its text and its --json document. */
export const BATCH_FIELDS = /* GraphQL */ `
  id name fileName status rowCount validCount invalidCount warningCount
  totalAmount { value currency } payableCount payableAmount { value } heldCount heldAmount { value } forced validRowsOnly includeHeld
  changedAccountCount changedAccountAmount { value } includeChangedAccounts
  payeeMarks { newPayees changedAccounts knownPayees changedSince }
  uploadedBy approvedBy createdAt approvedAt payAt startedAt finishedAt
  counts { status count amount } throughput secondsLeft
  waiting { reason since by shortfall { value } waitingFor nextCheckAt }
  approvals { by role at } approvalsNeeded { count roles required lapsed { by at } } ${PENDING_APPROVAL_FIELDS}`;

/** A batch as the gateway answers BATCH_FIELDS. */
export interface BatchView extends ApprovalsView {
  id: string;
  name: string;
  fileName: string | null;
  status: string;
  rowCount: number;
  validCount: number;
  invalidCount: number;
  warningCount: number;
  totalAmount: { value: string; currency: string };
  /** What an approval pays (or paid): the valid rows less those held. */
  payableCount: number;
  payableAmount: { value: string };
  heldCount: number;
  heldAmount: { value: string };
  forced: boolean;
  validRowsOnly: boolean;
  includeHeld: boolean;
  changedAccountCount: number;
  changedAccountAmount: { value: string };
  includeChangedAccounts: boolean;
  payeeMarks: { newPayees: number; changedAccounts: number; knownPayees: number; changedSince: string | null };
  uploadedBy: string | null;
  approvedBy: string | null;
  createdAt: string;
  approvedAt: string | null;
  /** When a scheduled batch pays (SCHEDULED until then). */
  payAt: string | null;
  startedAt: string | null;
  finishedAt: string | null;
  counts: Array<{ status: string; count: number; amount: string }>;
  throughput: number | null;
  secondsLeft: number | null;
  waiting: {
    reason: string;
    since: string | null;
    by: string | null;
    shortfall: { value: string } | null;
    waitingFor: string;
    nextCheckAt: string | null;
  } | null;
}

/** One line: what the batch is, what it pays and what it holds apart. */
export function summary(batch: BatchView): string {
  const currency = batch.totalAmount.currency;
  const held = heldText(batch);
  return (
    `Batch ${batch.id} (${batch.name}): ${statusWord(batch)}. ${batch.rowCount} rows, ${batch.validCount} valid, ` +
    `${batch.invalidCount} invalid, ${countOf(batch.warningCount, 'warning')}; ` +
    // What is paid, not the valid rows' sum: a held row is in that sum and is not paid (issue 38).
    `to pay ${localAmount(batch.payableAmount.value, currency)} (${countOf(batch.payableCount, 'row')}).` +
    (held === '' ? '' : ` Held, not paid unless the approver includes them: ${held}.`) +
    payeeMarksText(batch.payeeMarks) +
    (batch.forced ? ' Imported with --force: the same file was imported before.' : '')
  );
}

/**
 * A batch's status as a person reads it, as the page says it: a file with row errors whose
 * valid rows can still be paid "has row errors" (the API's REJECTED, which --json keeps);
 * only one with nothing to pay is rejected.
 */
export function statusWord(batch: Pick<BatchView, 'status' | 'validCount'>): string {
  return batch.status === BatchStatus.REJECTED && batch.validCount > 0 ? 'HAS ROW ERRORS' : batch.status;
}

type Held = Pick<
  BatchView,
  'totalAmount' | 'heldCount' | 'heldAmount' | 'changedAccountCount' | 'changedAccountAmount' | 'includeChangedAccounts'
>;

/** "1 repeat (₽500.00), 1 account changed (₽12,500.50)": held rows by why, each released by its own choice; '' when none. */
export function heldText(batch: Held): string {
  const currency = batch.totalAmount.currency;
  return [
    batch.heldCount === 0 ? null : `${countOf(batch.heldCount, 'repeat')} (${localAmount(batch.heldAmount.value, currency)})`,
    batch.changedAccountCount === 0 || batch.includeChangedAccounts
      ? null
      : `${batch.changedAccountCount} account changed (${localAmount(batch.changedAccountAmount.value, currency)})`,
  ]
    .filter((part) => part !== null)
    .join(', ');
}

/** " 3 new payees, 1 account changed since 27 Oct (held)." — nothing for a file without a payee column. */
export function payeeMarksText(marks: BatchView['payeeMarks']): string {
  const parts = [
    marks.newPayees > 0 ? countOf(marks.newPayees, 'new payee') : null,
    marks.changedAccounts > 0
      ? `${countOf(marks.changedAccounts, 'account')} changed${marks.changedSince === null ? '' : ` since ${shortDayText(marks.changedSince)}`} (held)`
      : null,
    marks.knownPayees > 0 ? `${countOf(marks.knownPayees, 'known payee')}` : null,
  ].filter((part) => part !== null);
  return parts.length === 0 ? '' : ` ${parts.join(', ')}.`;
}

/** The summary, rows and amounts per status, timing and what it waits for: `payout batch status`. */
export function statusText(batch: BatchView): string {
  const currency = batch.totalAmount.currency;
  // DUPLICATE is the API's name for a held row, whatever it is held for: said as held.
  const rows = batch.counts.map((c) => [
    c.status === BatchItemStatus.DUPLICATE ? 'HELD' : c.status,
    String(c.count),
    localAmount(c.amount, currency),
  ]);
  const timing = [
    batch.payAt === null
      ? null
      : `${batch.status === BatchStatus.SCHEDULED ? 'scheduled for' : 'was scheduled for'} ${timeText(batch.payAt)}`,
    batch.startedAt === null ? null : `started ${timeText(batch.startedAt)}`,
    batch.finishedAt === null ? null : `finished ${timeText(batch.finishedAt)}`,
    batch.throughput === null ? null : `${batch.throughput.toFixed(1)} rows/s`,
    secondsLeft(batch) === null ? null : `about ${Math.ceil(batch.secondsLeft!)} s left`,
  ].filter((part) => part !== null);
  const wait = batch.waiting;
  const next = wait?.nextCheckAt == null ? '' : `; next check ${timeText(wait.nextCheckAt)}`;
  const waiting = wait === null ? '' : `\nwaiting${wait.since === null ? '' : ` since ${timeText(wait.since)}`}: ${wait.waitingFor}${next}`;
  const pending = pendingText(batch);
  const approvals =
    pending === null ? approvalsText(batch) : `${approvalsText(batch)}\n${pending}: payout batch approve ${batch.id} --agree completes it`;
  return `${summary(batch)}\n${table(['STATUS', 'ROWS', 'AMOUNT'], rows)}${timing.length > 0 ? `\n${timing.join(', ')}` : ''}${approvals === null ? '' : `\n${approvals}`}${waiting}`;
}

/** The batch as --json gives it (docs/guide/cli.md): amounts as decimal strings, times ISO 8601. */
export function statusDoc(batch: BatchView): Record<string, unknown> {
  const { totalAmount, heldAmount, payableAmount, waiting, ...rest } = batch;
  return {
    ...rest,
    currency: totalAmount.currency,
    totalAmount: totalAmount.value,
    payableAmount: payableAmount.value,
    heldAmount: heldAmount.value,
    ...formerHeldNames({ count: batch.heldCount, amount: heldAmount.value, include: batch.includeHeld }),
    secondsLeft: secondsLeft(batch),
    waiting: waiting === null ? null : { ...waiting, shortfall: waiting.shortfall?.value ?? null },
  };
}

/** Time left means something only while rows are being paid: none once finished, none while paused. */
function secondsLeft(batch: BatchView): number | null {
  return batch.finishedAt !== null || batch.status === BatchStatus.PAUSED || batch.status === BatchStatus.SCHEDULED
    ? null
    : batch.secondsLeft;
}
