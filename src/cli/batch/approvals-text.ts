import { timeText } from './words.ts';

/** A batch's approvals as BATCH_FIELDS reads them. */
export interface ApprovalsView {
  approvals: Array<{ by: string; role: string | null; at: string }>;
  approvalsNeeded: { count: number; roles: string[]; required: number; lapsed: Array<{ by: string; at: string }> } | null;
}

const words = ['no', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];
const numberWord = (n: number) => words[n] ?? String(n);

/**
 * "1 of 2 approvals: key:april at 27/11/2026, 14:05; one more needed (admin)", the line the
 * page shows too; "approved by key:april at …, key:boris at …" once it started. Null for a
 * batch without approvals that waits for none (rejected, never approved).
 */
export function approvalsText(batch: ApprovalsView): string | null {
  const who = batch.approvals.map((a) => `${a.by} at ${timeText(a.at)}`).join(', ');
  const needed = batch.approvalsNeeded;
  if (needed === null) return batch.approvals.length === 0 ? null : `approved by ${who}`;
  const roles = needed.roles.map((r) => r.toLowerCase());
  const more = `${batch.approvals.length === 0 ? numberWord(needed.count) : `${numberWord(needed.count)} more`} needed${roles.length === 0 ? '' : ` (${roles.join(', ')})`}`;
  const lapsed = needed.lapsed.length === 0 ? '' : `; lapsed, no longer counted: ${needed.lapsed.map((a) => `${a.by} at ${timeText(a.at)}`).join(', ')}`;
  return `${batch.approvals.length} of ${needed.required} ${needed.required === 1 ? 'approval' : 'approvals'}${who === '' ? '' : `: ${who}`}; ${more}${lapsed}`;
}
