import type { Access } from './api.ts';
import { formatDateTime, type Translator } from './i18n.ts';
import { localAmount } from '../../src/money/money-text.ts';
import { nameOf } from './names.ts';
import type { BatchDetail } from './queries.ts';

type Approvable = Pick<BatchDetail, 'approvals' | 'approvalsNeeded'>;

const roleName = (role: string, i18n: Translator) => {
  const key = `role.${role.toLowerCase()}` as 'role.admin';
  return i18n.t(key);
};

/**
 * "1 of 2 approvals: April at 27 Nov 2026, 14:05:00; one more needed (admin)": what the
 * approval policy has and still needs, in the reader's language and time zone, people by
 * the names known so far (the page asks for them: useNames in batch-page.tsx). Null when
 * the batch awaits no approval.
 */
export function approvalsLine(batch: Approvable, i18n: Translator): string | null {
  const needed = batch.approvalsNeeded;
  if (needed === null) return null;
  const { t } = i18n;
  const who = batch.approvals.map((a) => t('batch.approvalAt', { by: nameOf(a.by), at: formatDateTime(a.at, i18n) })).join(', ');
  // "2 needed, including admin", never "2 needed (admin)": read as two admins (issue 38).
  const named = needed.roles.map((r) => roleName(r, i18n)).join(', ');
  const roles =
    needed.roles.length === 0 ? '' : needed.roles.length < needed.count ? t('batch.approvalsIncluding', { roles: named }) : ` (${named})`;
  const more =
    batch.approvals.length === 0 ? t('batch.approvalsFirst', { count: needed.count }) : t('batch.approvalsMore', { count: needed.count });
  const lapsed =
    needed.lapsed.length === 0
      ? ''
      : `; ${t('batch.approvalsLapsed', { days: needed.lapseDays, who: needed.lapsed.map((a) => t('batch.approvalAt', { by: nameOf(a.by), at: formatDateTime(a.at, i18n) })).join(', ') })}`;
  return `${t('batch.approvalsOf', { given: batch.approvals.length, required: needed.required })}${who === '' ? '' : `: ${who}`}; ${more}${roles}${lapsed}`;
}

/**
 * Whether this caller's approval would start the batch: it is the last one missing, and of a
 * role the policy still asks for (if any). Otherwise the button says "Add my approval".
 */
export function approvalStarts(batch: Approvable, access: Access): boolean {
  const needed = batch.approvalsNeeded;
  if (needed === null) return true;
  if (needed.count > 1 || needed.roles.length > 1) return false;
  return needed.roles.every((role) => role.toLowerCase() === access.role);
}

/**
 * This caller's approval already counts and the policy still needs others: approving again
 * would add nothing (one approval per person), so the page offers no button, and says so.
 */
export function approvedAlready(batch: Approvable, access: Access): boolean {
  return batch.approvalsNeeded !== null && access.caller !== undefined && batch.approvals.some((a) => a.by === access.caller);
}

type Pending = Pick<BatchDetail, 'approvals' | 'approvalsNeeded' | 'pendingApproval' | 'totalAmount'>;

/** "April and Boris": who agreed to the pending choice. */
export function pendingPeople(batch: Pending): string {
  const people = batch.pendingApproval?.approvals.map((a) => nameOf(a.by)) ?? [];
  return people.length <= 1 ? (people[0] ?? '') : `${people.slice(0, -1).join(', ')} & ${people.at(-1)}`;
}

/**
 * "April Smith approved paying 2 rows, ₽1,500.00, on 28 Nov 2026, 12:53; your approval
 * completes it": the choice a later approver is asked to agree to (decision 0029), in the
 * reader's zone. Null when no approval awaits another.
 */
export function pendingLine(batch: Pending, access: Access, i18n: Translator): string | null {
  const pending = batch.pendingApproval;
  if (pending === null) return null;
  const { t } = i18n;
  const included = `${pending.includeHeld ? t('batch.pendingHeld') : ''}${pending.includeChangedAccounts ? t('batch.pendingChanged') : ''}`;
  const when = pending.payAt === null ? t('batch.pendingNow') : t('batch.pendingAt', { at: formatDateTime(pending.payAt, i18n) });
  const yours = approvedAlready(batch, access)
    ? t('batch.pendingTheirs')
    : approvalStarts(batch, access)
      ? t('batch.pendingCompletes')
      : t('batch.pendingAdds');
  return t('batch.pendingLine', {
    who: pendingPeople(batch),
    count: pending.rows,
    amount: localAmount(pending.amount, batch.totalAmount.currency, i18n.tag),
    when,
    included,
    yours,
  });
}
