import { useEffect, useState } from 'preact/hooks';
import { ChangedAccounts, PayeeCell } from './payee-marks.tsx';
import { gql } from './api.ts';
import { useI18n, type Translator } from './i18n.ts';
import { localAmount } from '../../src/money/money-text.ts';
import { ErrorNotice, Money, Pager, StatusBadge, StatusFilter, serverText } from './parts.tsx';
import { providerName, recipientText } from './recipient-words.ts';
import { BATCH_ITEMS, HELD_FOR, ITEM_STATUSES, type BatchDetail, type BatchItem, type PageInfo } from './queries.ts';
import { rowNote } from './row-note.ts';

/** The batch page's rows: the table of rows (paged, filtered) and the held rows, with their notes. */
const PAGE_SIZE = 25;

/**
 * The rows on the current page, read again whenever the batch's counts move (the
 * subscription sends at most 4 updates a second), so the table never lags the progress.
 */
export function ItemsTable({ batchId, awaitingApproval, refreshKey }: { batchId: string; awaitingApproval: boolean; refreshKey: string }) {
  const i18n = useI18n();
  const { t } = i18n;
  const [status, setStatus] = useState('');
  const [cursors, setCursors] = useState<Array<string | null>>([null]);
  const [page, setPage] = useState<{ items: BatchItem[]; pageInfo: PageInfo } | undefined>();
  const [error, setError] = useState<unknown>();
  const after = cursors[cursors.length - 1] ?? null;
  // A valid row of a batch not approved yet waits for a person, not for a worker.
  const statusName = (value: string) =>
    value === 'PENDING' && awaitingApproval ? t('items.awaitingApproval') : isHeldFilter(value) ? t(`items.${value}`) : i18n.status(value);
  // A held row by its reason: a changed account is released by another choice of the approver than a repeat.
  const heldFor = isHeldFilter(status) ? HELD_FOR[status] : undefined;

  useEffect(() => {
    let current = true;
    gql<{ batch: { items: { edges: Array<{ node: BatchItem }>; pageInfo: PageInfo } } | null }>(BATCH_ITEMS, {
      id: batchId,
      status: status === '' || heldFor !== undefined ? null : status,
      heldFor: heldFor ?? null,
      first: PAGE_SIZE,
      after,
    }).then(
      (data) => {
        if (!current || data.batch === null) return;
        setError(undefined);
        setPage({ items: data.batch.items.edges.map((edge) => edge.node), pageInfo: data.batch.items.pageInfo });
      },
      (failure: unknown) => current && setError(failure),
    );
    return () => {
      current = false;
    };
  }, [batchId, status, after, refreshKey]);

  return (
    <section class="items" aria-labelledby="items-title">
      <h2 id="items-title">{t('batch.items')}</h2>
      <div class="toolbar">
        <StatusFilter
          label={t('batch.itemStatus')}
          value={status}
          statuses={ITEM_STATUSES}
          name={statusName}
          onChange={(value) => {
            setStatus(value);
            setCursors([null]);
          }}
        />
      </div>
      {error === undefined ? null : <ErrorNotice error={error} />}
      {page === undefined ? (
        <p role="status">{t('common.loading')}</p>
      ) : page.items.length === 0 ? (
        <p class="empty">{t('items.empty')}</p>
      ) : (
        // Focusable: on a narrow window the table scrolls sideways, and a keyboard must reach it.
        <div class="table-wrap" tabIndex={0}>
          <table class="items-table">
            <caption class="visually-hidden">{t('batch.items')}</caption>
            <thead>
              <tr>
                <th scope="col" class="num">
                  {t('items.line')}
                </th>
                <th scope="col">{t('items.reference')}</th>
                <th scope="col">{t('items.payee')}</th>
                <th scope="col">{t('items.provider')}</th>
                <th scope="col" class="num">
                  {t('items.amount')}
                </th>
                <th scope="col">{t('items.recipient')}</th>
                <th scope="col">{t('items.paymentId')}</th>
                <th scope="col">{t('items.status')}</th>
                <th scope="col">{t('items.error')}</th>
              </tr>
            </thead>
            <tbody>
              {page.items.map((item) => (
                <tr key={item.paymentId}>
                  <td class="num">{item.line}</td>
                  <td>{item.reference ?? '—'}</td>
                  <td class="payee">
                    <PayeeCell item={item} />
                  </td>
                  <td>{providerName(item.provider, i18n)}</td>
                  <td class="num">
                    <Money value={item.amount} />
                  </td>
                  <td class="recipient">{recipientText(item.provider, item.recipient, i18n)}</td>
                  <td class="mono">
                    {item.status === 'INVALID' || item.status === 'DUPLICATE' ? (
                      '—'
                    ) : awaitingApproval ? (
                      // Its id is fixed, but no payment exists before approval: nothing to find yet.
                      item.paymentId
                    ) : (
                      <a href={`#/find?q=${encodeURIComponent(item.paymentId)}`}>{item.paymentId}</a>
                    )}
                  </td>
                  <td>
                    <StatusBadge status={item.status} label={heldLabel(item.heldFor, t) ?? statusName(item.status)} />
                  </td>
                  <td>{serverText(rowNote(item, i18n), i18n)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager label={t('batch.items')} cursors={cursors} pageInfo={page?.pageInfo} onChange={setCursors} />
    </section>
  );
}

/** A held row's badge by why it is held; undefined for a row not held. */
function heldLabel(heldFor: BatchItem['heldFor'], t: Translator['t']): string | undefined {
  if (heldFor.length === 0) return undefined;
  return heldFor.map((reason) => t(`items.held:${reason}`)).join(' · ');
}

const isHeldFilter = (value: string): value is keyof typeof HELD_FOR => value in HELD_FOR;

/** Held rows (status DUPLICATE: they repeat a payment), the batches they repeat, and a forced import: what the approver must see. */
export function HeldRows({ batch }: { batch: BatchDetail }) {
  const i18n = useI18n();
  const { t } = i18n;
  if (batch.heldCount === 0 && batch.changedAccountCount === 0 && !batch.forced) return null;
  const money = (value: string) => localAmount(value, batch.totalAmount.currency, i18n.tag);
  return (
    <section class="notice notice-warn" aria-labelledby="held-title">
      <h2 id="held-title">{t('batch.heldTitle')}</h2>
      {batch.forced ? <p>{t('batch.forced')}</p> : null}
      <ChangedAccounts batch={batch} />
      {batch.heldCount === 0 ? null : (
        <>
          <p>
            {t(batch.includeHeld ? 'batch.heldIncluded' : 'batch.held', { count: batch.heldCount, amount: money(batch.heldAmount.value) })}
          </p>
          {batch.overlaps.length === 0 ? null : (
            <ul>
              {batch.overlaps.map((overlap) => (
                <li key={overlap.batchId}>
                  <a href={`#/batches/${overlap.batchId}`}>
                    {t('batch.overlap', { batch: overlap.batchId, rows: overlap.rows, amount: money(overlap.amount) })}
                  </a>
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  );
}
