import { useEffect, useState } from 'preact/hooks';
import { gql, subscribe, type Access } from './api.ts';
import { BatchActions, type Action } from './batch-actions.tsx';
import { Downloads } from './downloads.tsx';
import { ReviewEntry } from './lazy-pages.tsx';
import { WaitNotice } from './wait-notice.tsx';
import { approvalsLine, approvedAlready, pendingLine } from './approvals.tsx';
import { formatDateTime, formatDuration, useI18n, type Translator } from './i18n.ts';
import { localAmount } from '../../src/money/money-text.ts';
import { moneyObject } from '../../src/money/money-wire.ts';
import { formatNumber } from './money.ts';
import { useNames } from './names.ts';
import { BatchStatusBadge, ErrorNotice, Money, PageTitle, ProgressBar, batchStatusName, rowErrorsOnly } from './parts.tsx';
import { progressOf } from './progress.ts';
import {
  BATCH,
  BATCH_COMMISSION,
  BATCH_PROBLEMS,
  BATCH_PROGRESS,
  FINISHED_BATCH_STATUSES,
  type BatchDetail,
  type Problem,
} from './queries.ts';
import { REPORT_LIMIT, ValidationReport } from './report.tsx';
import { ScheduledNotice } from './schedule-parts.tsx';
import { HeldRows, ItemsTable } from './batch-rows.tsx';

export function BatchPage({ id, access }: { id: string; access: Access }) {
  const i18n = useI18n();
  const { t } = i18n;
  const [batch, setBatch] = useState<BatchDetail | null | undefined>();
  const [problems, setProblems] = useState<Problem[]>([]);
  const [error, setError] = useState<unknown>();
  const [live, setLive] = useState(false);
  // What an action did, shown while the batch stays in the state the action left it in.
  const [notice, setNotice] = useState<{ action: Action; status: string } | undefined>();
  const [generation, setGeneration] = useState(0);
  // Before approval, the commission an approval would start paying (the estimate approval weighs).
  const [estimate, setEstimate] = useState<{ value: string; currency: string } | undefined>();
  const unapproved = batch != null && batch.approvedAt === null && batch.payableCount > 0;
  // Everyone the page names, asked for in one request; the "is it you" checks compare identities.
  const name = useNames(
    batch == null
      ? []
      : [
          batch.uploadedBy,
          batch.approvedBy,
          batch.dismissedBy,
          ...batch.approvals.map((a) => a.by),
          ...(batch.approvalsNeeded?.lapsed.map((a) => a.by) ?? []),
          ...(batch.pendingApproval?.approvals.map((a) => a.by) ?? []),
        ],
  );
  useEffect(() => {
    if (!unapproved) return;
    let current = true;
    gql<{ batch: { commissionEstimate: { value: string; currency: string } } | null }>(BATCH_COMMISSION, { id, includeHeld: false }).then(
      (reply) => current && reply.batch !== null && setEstimate(reply.batch.commissionEstimate),
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [id, unapproved]);

  useEffect(() => {
    let current = true;
    setError(undefined);
    Promise.all([
      gql<{ batch: BatchDetail | null }>(BATCH, { id }),
      gql<{ batch: { problems: Problem[] } | null }>(BATCH_PROBLEMS, { id, limit: REPORT_LIMIT }),
    ]).then(
      ([detail, report]) => {
        if (!current) return;
        setBatch(detail.batch);
        setProblems(report.batch?.problems ?? []);
      },
      (failure: unknown) => current && setError(failure),
    );
    return () => {
      current = false;
    };
  }, [id, generation]);

  // Live progress: the subscription sends the batch now, then as its rows move, and ends
  // once the batch is finished. Started again after an action reopens the batch.
  const status = batch?.status;
  useEffect(() => {
    if (status === undefined || FINISHED_BATCH_STATUSES.includes(status) || status === 'REJECTED') return;
    setLive(true);
    const stop = subscribe<{ batchProgress: BatchDetail }>(
      BATCH_PROGRESS,
      { id },
      {
        onData: (data) => setBatch(data.batchProgress),
        onEnd: (failure) => {
          setLive(false);
          if (failure !== undefined) setError(failure);
        },
      },
    );
    return () => {
      stop();
      setLive(false);
    };
  }, [id, status === undefined || FINISHED_BATCH_STATUSES.includes(status)]);

  if (error !== undefined && batch === undefined) return <ErrorNotice error={error} onRetry={() => setGeneration((n) => n + 1)} />;
  if (batch === undefined) return <p role="status">{t('common.loading')}</p>;
  if (batch === null) {
    return (
      <>
        <PageTitle>{t('batch.notFound', { id })}</PageTitle>
        <a href="#/">{t('batch.back')}</a>
      </>
    );
  }

  const progress = progressOf(batch.counts);
  const money = (value: { value: string; currency: string }) => localAmount(value.value, value.currency, i18n.tag);
  const finished = FINISHED_BATCH_STATUSES.includes(batch.status);
  const mine = access.caller !== undefined && batch.uploadedBy === access.caller;
  // Discarded before approval: nothing is to pay and nobody is to approve it (issue 38).
  const discarded = batch.status === 'CANCELLED' && batch.approvedAt === null;
  // A file with row errors still awaits the approval of its valid rows: not "Final" (issue 38).
  const awaitsApproval = rowErrorsOnly(batch);
  // Local single-user mode records its one person as "anonymous" (the key) or "local" (audit): said in words.
  const personName = (who: string) =>
    access.anonymous && (who === 'anonymous' || who === 'local') ? t('batch.whoApprovesLocal') : name(who);
  // Maker-checker: who uploaded, and who may approve, as this caller sees it.
  const whoApproves = () => {
    if (access.anonymous) return t('batch.whoApprovesLocal');
    if (mine && !access.approvesOwn) return t('batch.whoApprovesNotYou');
    if (approvedAlready(batch, access)) return t('batch.whoApprovesOthers');
    if (access.may.approve && access.caller !== undefined) return t('batch.whoApprovesYou');
    return t('batch.whoApprovesText');
  };
  return (
    <>
      <p class="crumbs">
        <a href="#/">{t('batch.back')}</a>
      </p>
      <PageTitle>{t('batch.title', { name: batch.fileName ?? batch.name })}</PageTitle>
      <div class="batch-head">
        <BatchStatusBadge batch={batch} />
        <span class="mono muted">{batch.id}</span>
        <span class={`live ${live ? 'on' : ''}`}>{live ? t('batch.live') : finished && !awaitsApproval ? t('batch.liveEnded') : ''}</span>
      </div>

      <dl class="facts">
        <div>
          <dt>{t('batch.total')}</dt>
          <dd>
            {discarded
              ? t('batch.totalDiscarded')
              : t('batch.totalValue', { amount: money(batch.payableAmount), count: batch.payableCount })}
          </dd>
        </div>
        {/* Held rows apart from what is paid: the same payroll uploaded again is not counted twice. */}
        {batch.heldCount === 0 || batch.includeHeld || discarded ? null : (
          <div>
            <dt>{t('batch.heldFact')}</dt>
            <dd>{t('batch.totalValue', { amount: money(batch.heldAmount), count: batch.heldCount })}</dd>
          </div>
        )}
        <div>
          <dt>{t('batch.rows')}</dt>
          <dd>
            {t('report.summary', {
              rows: batch.rowCount,
              valid: batch.validCount,
              invalid: batch.invalidCount,
              warnings: batch.warningCount,
            })}
          </dd>
        </div>
        <div>
          <dt>{t('batch.commission')}</dt>
          <dd>
            {discarded ? (
              '—'
            ) : batch.approvedAt !== null ? (
              t('batch.commissionCharged', { amount: money(batch.commissionCharged) })
            ) : estimate === undefined ? (
              <span class="muted">{t('batch.commissionNote')}</span>
            ) : (
              t('batch.commissionEstimate', { amount: money(estimate) })
            )}
          </dd>
        </div>
        <div>
          <dt>{t('batch.uploadedBy')}</dt>
          <dd title={batch.uploadedBy ?? undefined}>
            {access.anonymous
              ? t('batch.whoApprovesLocal')
              : mine
                ? t('batch.you', { caller: name(batch.uploadedBy) })
                : name(batch.uploadedBy)}
          </dd>
        </div>
        {discarded ? null : (
          <div>
            <dt>{batch.approvedBy === null ? t('batch.whoApproves') : t('batch.approvedBy')}</dt>
            <dd>
              {batch.approvedBy === null
                ? whoApproves()
                : batch.approvals.length > 1
                  ? batch.approvals.map((a) => name(a.by)).join(', ')
                  : personName(batch.approvedBy)}
            </dd>
          </div>
        )}
        {/* What the approval policy has and still needs, while the batch waits for it. */}
        {approvalsLine(batch, i18n) === null ||
        (batch.approvals.length === 0 && batch.approvalsNeeded?.required === 1 && batch.approvalsNeeded.lapsed.length === 0) ? null : (
          <div>
            <dt>{t('batch.approvals')}</dt>
            <dd data-testid="approvals">{approvalsLine(batch, i18n)}</dd>
          </div>
        )}
        {/* Whose choice stands while the batch awaits more approvals (decision 0029). */}
        {pendingLine(batch, access, i18n) === null ? null : (
          <div>
            <dt>{t('batch.pendingChoice')}</dt>
            <dd data-testid="pending-approval">{pendingLine(batch, access, i18n)}</dd>
          </div>
        )}
        <div>
          <dt>{t('batch.created')}</dt>
          <dd>{formatDateTime(batch.createdAt, i18n)}</dd>
        </div>
        {batch.finishedAt === null ? null : (
          <div>
            <dt>{t('batch.finished')}</dt>
            <dd>{formatDateTime(batch.finishedAt, i18n)}</dd>
          </div>
        )}
      </dl>

      <ScheduledNotice batch={batch} />
      {batch.dismissedAt === null ? null : <p class="notice">{t('batch.dismissedNote', { by: name(batch.dismissedBy) })}</p>}
      <HeldRows batch={batch} />

      {batch.status === 'VALIDATING' || batch.approvedAt !== null ? (
        <section class="progress-panel" aria-labelledby="progress-title">
          <h2 id="progress-title">{t('batch.progress')}</h2>
          <ProgressBar progress={progress} label={t('batch.progress')} />
          <p aria-live="polite" aria-atomic="true" class="progress-text">
            {t('batch.done', { done: progress.done, total: progress.total })} · {batchStatusName(batch, i18n)}
          </p>
          {batch.waiting === null || finished ? null : <WaitNotice waiting={batch.waiting} />}
          <dl class="facts compact">
            <div>
              <dt>{t('batch.paid')}</dt>
              <dd>
                {progress.paid.count} · <Money value={moneyObject(progress.paid.amount, batch.totalAmount.currency)} />
              </dd>
            </div>
            <div>
              <dt>{t('batch.failed')}</dt>
              <dd>
                {progress.failed.count} · <Money value={moneyObject(progress.failed.amount, batch.totalAmount.currency)} />
              </dd>
            </div>
            {progress.cancelled.count === 0 ? null : (
              <div>
                <dt>{t('batch.cancelledRows')}</dt>
                <dd data-testid="cancelled-rows">
                  {progress.cancelled.count} · <Money value={moneyObject(progress.cancelled.amount, batch.totalAmount.currency)} />
                </dd>
              </div>
            )}
            <div>
              <dt>{t('batch.inFlight')}</dt>
              <dd>{progress.inFlight}</dd>
            </div>
            <div>
              <dt>{t('batch.waiting')}</dt>
              <dd>{progress.waiting}</dd>
            </div>
            <div>
              <dt>{t('batch.rate')}</dt>
              <dd>{batch.throughput == null ? '—' : t('batch.rateValue', { rate: formatNumber(batch.throughput, i18n.tag, 1) })}</dd>
            </div>
            <div>
              <dt>{t('batch.left')}</dt>
              <dd>
                {batch.waiting !== null && !finished
                  ? t('batch.waitingNow')
                  : batch.secondsLeft == null || finished
                    ? '—'
                    : formatDuration(batch.secondsLeft, i18n)}
              </dd>
            </div>
          </dl>
        </section>
      ) : null}

      <BatchActions
        batch={batch}
        access={access}
        onChanged={(changed, action) => {
          setBatch(changed);
          setNotice({ action, status: changed.status });
        }}
      />
      <div role="status" class="status-line">
        {notice?.status === batch.status
          ? noticeText(notice.action, batch, i18n)
          : approvedAlready(batch, access)
            ? t('batch.approvalRecorded')
            : ''}
      </div>
      <ReviewEntry batch={batch} access={access} onChanged={() => setGeneration((n) => n + 1)} />
      {error === undefined ? null : <ErrorNotice error={error} />}

      <Downloads batch={batch} />
      {problems.length > 0 || batch.status === 'REJECTED' ? <ValidationReport batch={batch} problems={problems} /> : null}
      <ItemsTable
        batchId={batch.id}
        awaitingApproval={batch.approvedAt === null}
        refreshKey={`${batch.status}|${batch.counts.map((c) => `${c.status}:${c.count}`).join(',')}`}
      />
    </>
  );
}

/**
 * What an action did, said while the batch stays where the action left it. An approved batch
 * that waits (paused for money, the partner not answering) says so, not "paying now".
 */
function noticeText(action: Action, batch: BatchDetail, i18n: Translator): string {
  const { t } = i18n;
  if (action === 'retry') return t('batch.retried');
  if (action === 'discard') return t('batch.discarded');
  if (action === 'dismiss') return t('batch.dismissedDone');
  if (action === 'cancel') return t('batch.cancelled');
  if (action === 'pause') return t('batch.paused');
  if (action === 'resume') return t('batch.resumed');
  if (action === 'reschedule') return t('batch.rescheduled');
  if (batch.status === 'SCHEDULED') return t('batch.scheduled');
  if (batch.approvedAt === null) return t('batch.approvalRecorded');
  // What it waits for is the notice beside the progress (WaitNotice): said there once, not twice.
  return batch.waiting === null ? t('batch.approved') : t('batch.approvedWaiting');
}
