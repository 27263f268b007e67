import type { Access } from './api.ts';
import { formatDateTime, type Translator } from './i18n.ts';
import type { BatchDetail } from './queries.ts';

type Approvable = Pick<BatchDetail, 'approvals' | 'approvalsNeeded'>;

const roleName = (role: string, i18n: Translator) => {
  const key = `role.${role.toLowerCase()}` as 'role.admin';
  return i18n.t(key);
};

/**
 * "1 of 2 approvals: April at 27 Nov 2026, 14:05:00; one more needed (admin)": what the
 * approval policy has and still needs, in the reader's language and time zone. Null when
 * the batch awaits no approval.
 */
export function approvalsLine(batch: Approvable, i18n: Translator): string | null {
  const needed = batch.approvalsNeeded;
  if (needed === null) return null;
  const { t } = i18n;
  const who = batch.approvals.map((a) => t('batch.approvalAt', { by: a.by, at: formatDateTime(a.at, i18n) })).join(', ');
  const roles = needed.roles.length === 0 ? '' : ` (${needed.roles.map((r) => roleName(r, i18n)).join(', ')})`;
  const more = batch.approvals.length === 0 ? t('batch.approvalsFirst', { count: needed.count }) : t('batch.approvalsMore', { count: needed.count });
  const lapsed =
    needed.lapsed.length === 0
      ? ''
      : `; ${t('batch.approvalsLapsed', { days: needed.lapseDays, who: needed.lapsed.map((a) => t('batch.approvalAt', { by: a.by, at: formatDateTime(a.at, i18n) })).join(', ') })}`;
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
