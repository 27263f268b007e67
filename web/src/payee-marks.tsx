import { localAmount } from '../../src/money/money-text.ts';
import { useI18n } from './i18n.ts';
import type { BatchDetail, BatchItem } from './queries.ts';
import { paidDay } from './row-note.ts';

/** A row's payee cell: its id and mark in words ("Account changed since 27 Oct 2026"); a dash for a file without payees. */
export function PayeeCell({ item }: { item: Pick<BatchItem, 'payee' | 'payeeMark'> }) {
  const i18n = useI18n();
  if (item.payee === null) return <>—</>;
  const mark = item.payeeMark;
  if (mark === null) return <>{item.payee}</>;
  const words =
    mark.kind === 'NEW_PAYEE'
      ? i18n.t('items.newPayee')
      : mark.kind === 'KNOWN'
        ? i18n.t('items.knownPayee')
        : i18n.t('items.accountChanged', { day: mark.lastPaidAt === null ? '—' : paidDay(mark.lastPaidAt, i18n) });
  return (
    <>
      {item.payee}
      <br />
      <span class={`payee-mark ${mark.kind === 'ACCOUNT_CHANGED' ? 'badge badge-warn' : 'muted'}`}>{words}</span>
    </>
  );
}

/** The batch page's word on rows held for a changed account: how many, how much, and whether the approver included them. */
export function ChangedAccounts({ batch }: { batch: BatchDetail }) {
  const i18n = useI18n();
  if (batch.changedAccountCount === 0) return null;
  const amount = localAmount(batch.changedAccountAmount.value, batch.changedAccountAmount.currency, i18n.tag);
  return (
    <p class="changed-accounts">
      {i18n.t(batch.includeChangedAccounts ? 'batch.changedIncluded' : 'batch.changedHeld', { count: batch.changedAccountCount, amount })}
    </p>
  );
}
