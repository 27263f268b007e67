import { formatDateTime, type Translator } from './i18n.ts';
import type { BatchItem } from './queries.ts';

/** Statuses only an execute leads to: a cancelled row's payment in one was executed after all. */
const EXECUTED = new Set(['IN_PROGRESS', 'COMPLETED', 'FAILED']);

/**
 * A row's error cell. A row cancelled after its payment was created at the partner says
 * what became of that payment: waiting there until its expiry, expired, or executed anyway.
 */
export function rowNote(item: Pick<BatchItem, 'errorCode' | 'errorMessage' | 'cancelledAfterCreate'>, i18n: Translator): string {
  const cancelled = item.cancelledAfterCreate;
  if (cancelled == null) return item.errorMessage ?? item.errorCode ?? '';
  if (EXECUTED.has(cancelled.paymentStatus)) return i18n.t('items.createdExecuted', { status: i18n.status(cancelled.paymentStatus) });
  const time = formatDateTime(cancelled.expiresAt, i18n);
  return i18n.t(cancelled.openUpstream ? 'items.createdNotExecuted' : 'items.createdExpired', { time });
}
