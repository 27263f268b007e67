import { useEffect, useState } from 'preact/hooks';
import { gql, refusal, type Access } from './api.ts';
import { formatDateTime, useI18n } from './i18n.ts';
import { localAmount } from '../../src/money/money-text.ts';
import { useNames } from './names.ts';
import { BatchStatusBadge, ErrorNotice, Money, PageTitle, Pager, ProgressBar, StatusFilter, waitText } from './parts.tsx';
import { progressOf } from './progress.ts';
import { UpcomingPaydays } from './schedule-parts.tsx';
import type { BatchAction } from './gql/graphql.ts';
import { BATCHES, BATCH_STATUSES, DISMISS_BATCH, type BatchListed, type LifecycleResult, type PageInfo } from './queries.ts';

/** A batch that paid nothing and never will (a rejected upload, or one discarded before approval), as the gateway says. */
export const dismissable = (batch: { actions: readonly BatchAction[] }) => batch.actions.includes('DISMISS');

const PAGE_SIZE = 20;

/** Rows held for a changed account and not released by the approver: apart from repeats, since another choice pays them. */
const changedHeld = (batch: BatchListed) => batch.changedAccountCount > 0 && !batch.includeChangedAccounts;

export function BatchesPage({ access }: { access: Access }) {
  const i18n = useI18n();
  const { t } = i18n;
  const [status, setStatus] = useState('');
  const [cursors, setCursors] = useState<Array<string | null>>([null]);
  const [reply, setReply] = useState<{ batches: BatchListed[]; pageInfo: PageInfo } | undefined>();
  const [error, setError] = useState<unknown>();
  const [reload, setReload] = useState(0);
  const [showDismissed, setShowDismissed] = useState(false);
  // Who paused a batch, named in its wait sign (waitText).
  useNames(reply?.batches.map((b) => b.waiting?.by) ?? []);
  const after = cursors[cursors.length - 1] ?? null;

  useEffect(() => {
    let current = true;
    setError(undefined);
    gql<{ batches: { edges: Array<{ node: BatchListed }>; pageInfo: PageInfo } }>(BATCHES, {
      status: status === '' ? null : status,
      includeDismissed: showDismissed,
      first: PAGE_SIZE,
      after,
    }).then(
      (data) => current && setReply({ batches: data.batches.edges.map((edge) => edge.node), pageInfo: data.batches.pageInfo }),
      (failure: unknown) => current && setError(failure),
    );
    return () => {
      current = false;
    };
  }, [status, after, reload, showDismissed]);

  // Every bad upload leaves a batch behind: one that paid nothing can be taken off the list (kept on record).
  async function dismiss(batch: BatchListed) {
    setError(undefined);
    try {
      const reply = await gql<{ result: LifecycleResult }>(DISMISS_BATCH, { id: batch.id });
      if ('batch' in reply.result) setReload((n) => n + 1);
      else setError(refusal(reply.result));
    } catch (failure) {
      setError(failure);
    }
  }

  return (
    <>
      <PageTitle>{t('batches.title')}</PageTitle>
      <UpcomingPaydays refreshKey={String(reload)} />
      <div class="toolbar">
        <StatusFilter
          label={t('batches.filter')}
          value={status}
          statuses={BATCH_STATUSES}
          onChange={(value) => {
            setStatus(value);
            setCursors([null]);
          }}
        />
        <label class="check">
          <input
            type="checkbox"
            checked={showDismissed}
            onChange={(event) => {
              setShowDismissed((event.target as HTMLInputElement).checked);
              setCursors([null]);
            }}
          />{' '}
          {t('batches.showDismissed')}
        </label>
        <button type="button" onClick={() => setReload((n) => n + 1)}>
          {t('batches.refresh')}
        </button>
        {access.may.upload ? (
          <a class="button primary" href="#/upload">
            {t('nav.upload')}
          </a>
        ) : null}
      </div>
      {error !== undefined ? <ErrorNotice error={error} onRetry={() => setReload((n) => n + 1)} /> : null}
      {reply === undefined && error === undefined ? <p role="status">{t('common.loading')}</p> : null}
      {reply !== undefined && reply.batches.length === 0 ? (
        <p class="empty">
          {t('batches.empty')} {access.may.upload ? t('batches.emptyUpload') : ''}
        </p>
      ) : null}
      {reply !== undefined && reply.batches.length > 0 ? (
        <div class="table-wrap">
          <table class="batches">
            <caption class="visually-hidden">{t('batches.title')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('batches.name')}</th>
                <th scope="col">{t('batches.created')}</th>
                <th scope="col">{t('batches.status')}</th>
                <th scope="col" class="num">
                  {t('batches.rows')}
                </th>
                <th scope="col" class="num">
                  {t('batches.valid')}
                </th>
                <th scope="col" class="num">
                  {t('batches.invalid')}
                </th>
                <th scope="col" class="num">
                  {t('batches.amount')}
                </th>
                <th scope="col">{t('batches.progress')}</th>
              </tr>
            </thead>
            <tbody>
              {reply.batches.map((batch) => {
                const progress = progressOf(batch.counts);
                return (
                  <tr key={batch.id}>
                    <th scope="row">
                      <a href={`#/batches/${batch.id}`}>{batch.fileName ?? batch.name}</a>
                      <div class="muted mono">{batch.id}</div>
                    </th>
                    <td>{formatDateTime(batch.createdAt, i18n)}</td>
                    <td>
                      <BatchStatusBadge batch={batch} />
                      {batch.dismissedAt === null ? null : <div class="muted">{t('batches.dismissed')}</div>}
                      {dismissable(batch) && access.may.cancel ? (
                        <div>
                          <button
                            type="button"
                            class="link"
                            aria-label={t('batches.dismissLabel', { name: batch.fileName ?? batch.name })}
                            onClick={() => void dismiss(batch)}
                          >
                            {t('batches.dismiss')}
                          </button>
                        </div>
                      ) : null}
                      {/* "Paying" alone hides a batch that sends nothing now: say why, as its page does. */}
                      {batch.waiting === null ? null : <div class="wait-sign">{waitText(batch.waiting, i18n)}</div>}
                    </td>
                    <td class="num">{batch.rowCount}</td>
                    {/* What is paid, with held rows apart: adding the column up never counts a payment twice. */}
                    <td class="num">
                      {batch.payableCount}
                      {batch.heldCount === 0 ? null : <div class="muted">{t('batches.heldApart', { count: batch.heldCount })}</div>}
                      {changedHeld(batch) ? (
                        <div class="muted">{t('batches.changedApart', { count: batch.changedAccountCount })}</div>
                      ) : null}
                    </td>
                    <td class="num">{batch.invalidCount}</td>
                    <td class="num">
                      <Money value={batch.payableAmount} />
                      {batch.heldCount === 0 ? null : (
                        <div class="muted">
                          {t('batches.heldAmount', { amount: localAmount(batch.heldAmount.value, batch.heldAmount.currency, i18n.tag) })}
                        </div>
                      )}
                      {changedHeld(batch) ? (
                        <div class="muted">
                          {t('batches.changedAmount', {
                            amount: localAmount(batch.changedAccountAmount.value, batch.changedAccountAmount.currency, i18n.tag),
                          })}
                        </div>
                      ) : null}
                    </td>
                    <td class="progress-cell">
                      {batch.approvedAt === null ? (
                        <span class="muted">{t('batches.notApproved')}</span>
                      ) : (
                        <>
                          <ProgressBar progress={progress} label={`${batch.fileName ?? batch.name}: ${t('batches.progress')}`} />
                          <span class="muted">{t('batch.done', { done: progress.done, total: progress.total })}</span>
                        </>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      ) : null}
      <Pager label={t('batches.title')} cursors={cursors} pageInfo={reply?.pageInfo} onChange={setCursors} />
    </>
  );
}
