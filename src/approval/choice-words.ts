import { amountInWords } from '../money/money-text.ts';
import { utcDateTime } from '../money/readable-text.ts';
import type { BatchChoice, PendingChoice } from './approvals.ts';
import type { GivenApproval } from './evaluate.ts';

/** "key:april" / "key:april and key:boris" / "key:a, key:b and key:c". */
export function peopleInWords(approvals: readonly Pick<GivenApproval, 'actor'>[]): string {
  const names = approvals.map((a) => a.actor);
  return names.length <= 1 ? (names[0] ?? 'nobody') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

/** "paying 3 rows, 35,500.50 RUB, at 28 Nov 2026, 09:53 UTC, held repeats included": what a choice pays, and when. */
export function choiceInWords(choice: BatchChoice, rows: { count: number; total: string }, currency: string): string {
  const when = choice.payAt === null ? 'as soon as the approvals are complete' : `at ${utcDateTime(choice.payAt)}`;
  const included = [
    choice.includeHeld ? 'held repeats included' : '',
    choice.includeChangedAccounts ? 'rows held for a changed account included' : '',
  ].filter((s) => s !== '');
  return `paying ${rows.count} ${rows.count === 1 ? 'row' : 'rows'}, ${amountInWords(rows.total, currency)}, ${when}${included.length === 0 ? '' : `, ${included.join(', ')}`}`;
}

/** "key:april approved paying 3 rows, 35,500.50 RUB, at 28 Nov 2026, 09:53 UTC": the choice a later approver completes or replaces. */
export function pendingInWords(pending: PendingChoice, currency: string): string {
  return `${peopleInWords(pending.state.approvals)} approved ${choiceInWords(pending.choice, pending.state.rows, currency)}`;
}
