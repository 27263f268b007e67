import { BatchStatus } from '../../db/generated/enums.ts';
import { formerHeldNames, table } from '../output.ts';
import { amountText, countOf, shortDayText, timeText } from './words.ts';
import { approvalsText, pendingText, PENDING_APPROVAL_FIELDS, type ApprovalsView } from './approvals-text.ts';

/** The Batch fields every batch command reads from the gateway, for its text and its --json document. */
export const BATCH_FIELDS = /* GraphQL */ `
  id name fileName status rowCount validCount invalidCount warningCount
  totalAmount { value currency } heldCount heldAmount { value } forced validRowsOnly includeHeld
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
  waiting: { reason: string; since: string | null; by: string | null; shortfall: { value: string } | null; waitingFor: string; nextCheckAt: string | null } | null;
}

/** One line: what the batch is and holds. */
export function summary(batch: BatchView): string {
  const currency = batch.totalAmount.currency;
  return (
    `Batch ${batch.id} (${batch.name}): ${batch.status}. ${batch.rowCount} rows, ${batch.validCount} valid, ` +
    `${batch.invalidCount} invalid, ${countOf(batch.warningCount, 'warning')}; valid rows total ${amountText(batch.totalAmount.value, currency)}.` +
    (batch.heldCount > 0 ? ` ${batch.heldCount} rows (${amountText(batch.heldAmount.value, currency)}) repeat a payment and are held.` : '') +
    payeeMarksText(batch.payeeMarks) +
    (batch.forced ? ' Imported with --force: the same file was imported before.' : '')
  );
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
  const rows = batch.counts.map((c) => [c.status, String(c.count), amountText(c.amount, currency)]);
  const timing = [
    batch.payAt === null ? null : `${batch.status === BatchStatus.SCHEDULED ? 'scheduled for' : 'was scheduled for'} ${timeText(batch.payAt)}`,
    batch.startedAt === null ? null : `started ${timeText(batch.startedAt)}`,
    batch.finishedAt === null ? null : `finished ${timeText(batch.finishedAt)}`,
    batch.throughput === null ? null : `${batch.throughput.toFixed(1)} rows/s`,
    secondsLeft(batch) === null ? null : `about ${Math.ceil(batch.secondsLeft!)} s left`,
  ].filter((part) => part !== null);
  const wait = batch.waiting;
  const next = wait?.nextCheckAt == null ? '' : `; next check ${timeText(wait.nextCheckAt)}`;
  const waiting = wait === null ? '' : `\nwaiting${wait.since === null ? '' : ` since ${timeText(wait.since)}`}: ${wait.waitingFor}${next}`;
  const pending = pendingText(batch);
  const approvals = pending === null ? approvalsText(batch) : `${approvalsText(batch)}\n${pending}: payout batch approve ${batch.id} --agree completes it`;
  return `${summary(batch)}\n${table(['STATUS', 'ROWS', 'AMOUNT'], rows)}${timing.length > 0 ? `\n${timing.join(', ')}` : ''}${approvals === null ? '' : `\n${approvals}`}${waiting}`;
}

/** The batch as --json gives it (docs/guide/cli.md): amounts as decimal strings, times ISO 8601. */
export function statusDoc(batch: BatchView): Record<string, unknown> {
  const { totalAmount, heldAmount, waiting, ...rest } = batch;
  return {
    ...rest,
    currency: totalAmount.currency,
    totalAmount: totalAmount.value,
    heldAmount: heldAmount.value,
    ...formerHeldNames({ count: batch.heldCount, amount: heldAmount.value, include: batch.includeHeld }),
    secondsLeft: secondsLeft(batch),
    waiting: waiting === null ? null : { ...waiting, shortfall: waiting.shortfall?.value ?? null },
  };
}

/** Time left means something only while rows are being paid: none once finished, none while paused. */
function secondsLeft(batch: BatchView): number | null {
  return batch.finishedAt !== null || batch.status === BatchStatus.PAUSED || batch.status === BatchStatus.SCHEDULED ? null : batch.secondsLeft;
}
