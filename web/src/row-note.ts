import { formatDateTime, type Translator } from './i18n.ts';
import type { BatchItem } from './queries.ts';

/** "27 Oct 2026" in the reader's language: the day a payee was last paid. */
export function paidDay(value: string, i18n: Translator): string {
  return new Intl.DateTimeFormat(i18n.tag, { dateStyle: 'medium' }).format(new Date(value));
}

/** Statuses only an execute leads to: a cancelled row's payment in one was executed after all. */
const EXECUTED = new Set(['IN_PROGRESS', 'COMPLETED', 'FAILED']);

/**
 * A row's error cell. A row cancelled after its payment was created at the partner says
 * what became of that payment: waiting there until its expiry, expired, or executed anyway.
 */
/** The problem code of a row held because its payee's account changed (src/payees/payee-marks.ts ACCOUNT_CHANGED). */
export const ACCOUNT_CHANGED = 'row.account-changed';

export function rowNote(
  item: Pick<BatchItem, 'errorCode' | 'errorMessage' | 'cancelledAfterCreate'> & Partial<Pick<BatchItem, 'payee' | 'payeeMark'>>,
  i18n: Translator,
): string {
  // Held for a changed account: said in the page's language, with the day in the reader's.
  const mark = item.payeeMark;
  if (item.errorCode === ACCOUNT_CHANGED && mark?.lastPaidAt != null) {
    return i18n.t('items.accountChangedHeld', { payee: item.payee ?? '', day: paidDay(mark.lastPaidAt, i18n) });
  }
  const cancelled = item.cancelledAfterCreate;
  if (cancelled == null) return item.errorMessage ?? item.errorCode ?? '';
  if (EXECUTED.has(cancelled.paymentStatus)) return i18n.t('items.createdExecuted', { status: i18n.status(cancelled.paymentStatus) });
  const time = formatDateTime(cancelled.expiresAt, i18n);
  return i18n.t(cancelled.openUpstream ? 'items.createdNotExecuted' : 'items.createdExpired', { time });
}
