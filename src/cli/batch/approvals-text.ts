import { localAmount } from '../../money/money-text.ts';
import { timeText } from './words.ts';

/** The choice approvals agree to while the batch awaits more (Batch.pendingApproval, decision 0029). */
export interface PendingApprovalView {
  approvals: Array<{ by: string; at: string }>;
  /** The gateway's own sentence (times in UTC), for scripts that show whose choice stands. */
  summary: string;
  payAt: string | null;
  includeHeld: boolean;
  includeChangedAccounts: boolean;
  validRowsOnly: boolean;
  rows: number;
  amount: string;
}

/** A batch's approvals as BATCH_FIELDS reads them. */
export interface ApprovalsView {
  approvals: Array<{ by: string; role: string | null; at: string }>;
  approvalsNeeded: { count: number; roles: string[]; required: number; lapsed: Array<{ by: string; at: string }> } | null;
  pendingApproval: PendingApprovalView | null;
  totalAmount: { currency: string };
}

export const PENDING_APPROVAL_FIELDS =
  'pendingApproval { approvals { by at } summary payAt includeHeld includeChangedAccounts validRowsOnly rows amount }';

const words = ['no', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];
const numberWord = (n: number) => words[n] ?? String(n);

/**
 * "1 of 2 approvals: key:april at 27/11/2026, 14:05; one more needed (admin)", the line the
 * page shows too; "approved by key:april at …, key:boris at …" once it started. Null for a
 * batch without approvals that waits for none (rejected, never approved).
 */
export function approvalsText(batch: Pick<ApprovalsView, 'approvals' | 'approvalsNeeded'>): string | null {
  const who = batch.approvals.map((a) => `${a.by} at ${timeText(a.at)}`).join(', ');
  const needed = batch.approvalsNeeded;
  if (needed === null) return batch.approvals.length === 0 ? null : `approved by ${who}`;
  const roles = needed.roles.map((r) => r.toLowerCase());
  // "two needed, including admin", never "two needed (admin)": read as two admins (issue 38).
  const which = roles.length === 0 ? '' : roles.length < needed.count ? `, including ${roles.join(', ')}` : ` (${roles.join(', ')})`;
  const more = `${batch.approvals.length === 0 ? numberWord(needed.count) : `${numberWord(needed.count)} more`} needed${which}`;
  const lapsed =
    needed.lapsed.length === 0 ? '' : `; lapsed, no longer counted: ${needed.lapsed.map((a) => `${a.by} at ${timeText(a.at)}`).join(', ')}`;
  return `${batch.approvals.length} of ${needed.required} ${needed.required === 1 ? 'approval' : 'approvals'}${who === '' ? '' : `: ${who}`}; ${more}${lapsed}`;
}

/** "paying 3 rows, ₽35,500.50, at 28 Nov 2026, 12:53, rows held for a changed account included", in this terminal's time zone. */
export function choiceText(choice: Omit<PendingApprovalView, 'approvals' | 'summary'>, currency: string): string {
  // The zone named: the gateway's own words say UTC (the walk of issue 38 read "4:39:00 PM" beside "16:39 UTC").
  const when =
    choice.payAt === null
      ? 'as soon as the approvals are complete'
      : `at ${timeText(choice.payAt)} (${Intl.DateTimeFormat().resolvedOptions().timeZone})`;
  const included = [
    choice.includeHeld ? 'held repeats included' : '',
    choice.includeChangedAccounts ? 'rows held for a changed account included' : '',
  ].filter((s) => s !== '');
  return `paying ${choice.rows} ${choice.rows === 1 ? 'row' : 'rows'}, ${localAmount(choice.amount, currency)}, ${when}${included.length === 0 ? '' : `, ${included.join(', ')}`}`;
}

/** "key:april approved paying 3 rows, ₽35,500.50, at …": whose choice stands while the batch awaits more approvals. Null when none. */
export function pendingText(batch: ApprovalsView): string | null {
  const pending = batch.pendingApproval;
  if (pending === null) return null;
  const people = pending.approvals.map((a) => a.by);
  const who = people.length <= 1 ? (people[0] ?? 'nobody') : `${people.slice(0, -1).join(', ')} and ${people.at(-1)}`;
  return `${who} approved ${choiceText(pending, batch.totalAmount.currency)}`;
}
