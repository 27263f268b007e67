import { approvalStarts, approvedAlready, pendingLine, pendingPeople } from './approvals.tsx';
import { useEffect, useRef, useState } from 'preact/hooks';
import { gql, refusal, type Access } from './api.ts';
import { useI18n } from './i18n.ts';
import { localAmount } from '../../src/money/money-text.ts';
import { sumDecimals } from './money.ts';
import { PayAtInput, PayWhen, payAtOf } from './schedule-parts.tsx';
import {
  APPROVE_BATCH,
  BATCH_COMMISSION,
  CANCEL_BATCH,
  RESCHEDULE_BATCH,
  DISMISS_BATCH,
  PAUSE_BATCH,
  RESUME_BATCH,
  RETRY_FAILED,
  type BatchDetail,
  type LifecycleResult,
  type Money,
} from './queries.ts';
import { ErrorNotice } from './parts.tsx';
import type { BatchAction } from './gql/graphql.ts';

export type Action = 'approve' | 'approveValid' | 'reschedule' | 'pause' | 'resume' | 'cancel' | 'discard' | 'dismiss' | 'retry';

/** The page's name of each action the gateway says a batch's state allows (Batch.actions, from its lifecycle table). */
const pageActions: Record<BatchAction, Action> = {
  APPROVE: 'approve',
  APPROVE_VALID_ROWS: 'approveValid',
  DISCARD: 'discard',
  PAUSE: 'pause',
  RESUME: 'resume',
  RESCHEDULE: 'reschedule',
  CANCEL: 'cancel',
  RETRY_FAILED: 'retry',
  DISMISS: 'dismiss',
};

/**
 * What a batch in its state allows (the gateway's answer, in its order), limited to what the
 * caller's role may do: the page tests no state of its own.
 */
export function actionsFor(batch: BatchDetail, access: Access): Action[] {
  // Maker-checker: the gateway refuses the uploader's own approval unless it runs single-user.
  const mayApprove =
    access.may.approve &&
    (access.approvesOwn || access.caller === undefined || batch.uploadedBy !== access.caller) &&
    !approvedAlready(batch, access);
  const may: Record<Action, boolean> = {
    approve: mayApprove,
    approveValid: mayApprove,
    reschedule: mayApprove,
    discard: access.may.cancel,
    pause: access.may.cancel,
    resume: access.may.cancel,
    cancel: access.may.cancel,
    dismiss: access.may.cancel,
    retry: access.may.retry,
  };
  return batch.actions.map((action) => pageActions[action]).filter((action) => may[action]);
}

/** Refusals of an approval for money: the balance does not cover the batch, or could not be read. */
const FUNDS_REFUSALS = ['BATCH_INSUFFICIENT_FUNDS', 'BATCH_BALANCE_UNKNOWN'];

const labels = {
  startAnyway: 'batch.startAnyway',
  approve: 'batch.approve',
  approveValid: 'batch.approveValid',
  reschedule: 'batch.reschedule',
  pause: 'batch.pause',
  resume: 'batch.resume',
  cancel: 'batch.cancel',
  discard: 'batch.discard',
  dismiss: 'batch.dismiss',
  retry: 'batch.retry',
} as const;

export function BatchActions({
  batch,
  access,
  onChanged,
}: {
  batch: BatchDetail;
  access: Access;
  onChanged: (batch: BatchDetail, action: Action) => void;
}) {
  const i18n = useI18n();
  const { t } = i18n;
  // 'startAnyway': the approval refused for money, sent again with ignoreBalance.
  const [asking, setAsking] = useState<Action | 'startAnyway' | undefined>();
  // The approval the gateway refused for money, with its choices, for "Start anyway".
  const [refused, setRefused] = useState<
    { action: Action; includeHeld: boolean; includeChanged: boolean; payAt: string | null; agree: boolean } | undefined
  >();
  // Another approver's choice awaits: the question offers to agree to it, unless this approver chooses otherwise (a new round).
  const [own, setOwn] = useState(false);
  // Scheduling: pay later, at a date and time picked in the clerk's zone (schedule-parts.tsx).
  const [later, setLater] = useState(false);
  const [payAtLocal, setPayAtLocal] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [includeHeld, setIncludeHeld] = useState(false);
  const [includeChanged, setIncludeChanged] = useState(false);
  const confirmRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking !== undefined) confirmRef.current?.focus();
  }, [asking]);
  // The commission approval will weigh against the balance, read when the question opens and
  // quoted in it; until then (or if it cannot be read) the question says "plus commission".
  const [commission, setCommission] = useState<{ includeHeld: boolean; estimate: Money } | undefined>();
  const approving = asking === 'approve' || asking === 'approveValid';
  const agreeing = approving && batch.pendingApproval !== null && !own;
  // A new round counts this approval alone: it starts the batch only where one approval is enough.
  const starts = batch.pendingApproval !== null && own ? (batch.approvalsNeeded?.required ?? 1) <= 1 : approvalStarts(batch, access);
  useEffect(() => {
    if (!approving) return;
    let current = true;
    // Either kind of held row included: the estimate counts every held row, as approval's funds check does.
    const anyHeld = includeHeld || includeChanged;
    gql<{ batch: { commissionEstimate: Money } | null }>(BATCH_COMMISSION, { id: batch.id, includeHeld: anyHeld }).then(
      (reply) => {
        if (current && reply.batch !== null) setCommission({ includeHeld: anyHeld, estimate: reply.batch.commissionEstimate });
      },
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [approving, includeHeld, includeChanged, batch.id]);

  const actions = actionsFor(batch, access);
  if (actions.length === 0) return null;

  async function run(asked: Action | 'startAnyway') {
    const ignoreBalance = asked === 'startAnyway';
    const action = ignoreBalance ? (refused?.action ?? 'approve') : asked;
    const payHeld = ignoreBalance ? (refused?.includeHeld ?? false) : includeHeld;
    const payAt = ignoreBalance ? (refused?.payAt ?? null) : later || action === 'reschedule' ? payAtOf(payAtLocal) : null;
    if ((later || action === 'reschedule') && !ignoreBalance && payAt === null) return setError(new Error(t('batch.payAtMissing')));
    const payChanged = ignoreBalance ? (refused?.includeChanged ?? false) : includeChanged;
    const agree = ignoreBalance ? (refused?.agree ?? false) : agreeing;
    setBusy(true);
    setError(undefined);
    setRefused(undefined);
    try {
      const reply =
        action === 'approve' || action === 'approveValid'
          ? await gql<{ result: LifecycleResult }>(
              APPROVE_BATCH,
              agree
                ? { id: batch.id, agree: true, ignoreBalance }
                : {
                    id: batch.id,
                    validRowsOnly: action === 'approveValid',
                    includeHeld: payHeld,
                    includeChangedAccounts: payChanged,
                    ignoreBalance,
                    payAt,
                    newRound: batch.pendingApproval !== null,
                  },
            )
          : action === 'reschedule'
            ? await gql<{ result: LifecycleResult }>(RESCHEDULE_BATCH, { id: batch.id, payAt: payAt! })
            : action === 'retry'
              ? await gql<{ result: LifecycleResult }>(RETRY_FAILED, { id: batch.id })
              : action === 'pause'
                ? await gql<{ result: LifecycleResult }>(PAUSE_BATCH, { id: batch.id })
                : action === 'resume'
                  ? await gql<{ result: LifecycleResult }>(RESUME_BATCH, { id: batch.id })
                  : action === 'dismiss'
                    ? await gql<{ result: LifecycleResult }>(DISMISS_BATCH, { id: batch.id })
                    : await gql<{ result: LifecycleResult }>(CANCEL_BATCH, { id: batch.id });
      if ('batch' in reply.result) onChanged(reply.result.batch, action);
      else {
        setError(refusal(reply.result));
        if (FUNDS_REFUSALS.includes(reply.result.code))
          setRefused({ action, includeHeld: payHeld, includeChanged: payChanged, payAt, agree });
      }
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
      setAsking(undefined);
      setOwn(false);
    }
  }

  const question = (action: Action | 'startAnyway') => {
    if (agreeing && action !== 'startAnyway') return pendingLine(batch, access, i18n);
    if (action === 'approve' || action === 'approveValid' || action === 'startAnyway') {
      // Held rows are paid only when the box below is ticked: the question counts what will be paid.
      const payHeld = action === 'startAnyway' ? refused?.includeHeld === true : includeHeld;
      const payChanged = action === 'startAnyway' ? refused?.includeChanged === true : includeChanged;
      // payable* leave out both kinds of held rows; each included adds its own back (the counts are apart).
      const count = batch.payableCount + (payHeld ? batch.heldCount : 0) + (payChanged ? batch.changedAccountCount : 0);
      const amount = sumDecimals([
        batch.payableAmount.value,
        payHeld ? batch.heldAmount.value : '0',
        payChanged ? batch.changedAccountAmount.value : '0',
      ]);
      const money = localAmount(amount, batch.totalAmount.currency, i18n.tag);
      if (action === 'startAnyway') return t('batch.confirmStartAnyway', { count, amount: money });
      if (!starts) return t('batch.confirmAddApproval', { count, amount: money });
      if (commission === undefined || commission.includeHeld !== (payHeld || payChanged))
        return t('batch.confirmApprove', { count, amount: money });
      return t('batch.confirmApproveCommission', {
        count,
        amount: money,
        commission: localAmount(commission.estimate.value, commission.estimate.currency, i18n.tag),
      });
    }
    if (action === 'reschedule') return t('batch.confirmReschedule');
    if (action === 'pause') return t('batch.confirmPause');
    if (action === 'resume') return t('batch.confirmResume');
    // Discarding a batch never approved sends nothing: the question says so, not "payments already sent will finish".
    if (action === 'discard') return t('batch.confirmDiscard');
    if (action === 'dismiss') return t('batch.confirmDismiss');
    return action === 'retry' ? t('batch.retry') + '?' : t('batch.confirmCancel');
  };

  return (
    <section class="actions" aria-labelledby={`actions-${batch.id}`}>
      <h2 id={`actions-${batch.id}`} class="visually-hidden">
        {t('batch.actions')}
      </h2>
      {asking === undefined ? (
        <div class="button-row">
          {actions.map((action) => (
            <button
              type="button"
              key={action}
              class={
                action === 'approve' || action === 'approveValid' ? 'primary' : action === 'cancel' || action === 'discard' ? 'danger' : ''
              }
              disabled={busy}
              onClick={() => setAsking(action)}
            >
              {/* Another approver's choice awaits: the button says what it approves (the walk of issue 38 read "Approve and pay" for a time ahead). */}
              {action === 'approve' && batch.pendingApproval !== null
                ? t('batch.agree')
                : action === 'approve' && !approvalStarts(batch, access)
                  ? t('batch.addApproval')
                  : t(labels[action])}
            </button>
          ))}
        </div>
      ) : (
        <div class="confirm" role="group" aria-labelledby="confirm-question">
          <p id="confirm-question">{question(asking)}</p>
          {approving && batch.pendingApproval !== null && own ? (
            <p class="note">{t('batch.newRoundNote', { who: pendingPeople(batch) })}</p>
          ) : null}
          {approving && !agreeing && batch.heldCount > 0 ? (
            <label class="check">
              <input
                type="checkbox"
                checked={includeHeld}
                onChange={(event) => setIncludeHeld((event.target as HTMLInputElement).checked)}
              />{' '}
              {t('batch.includeHeld', {
                count: batch.heldCount,
                amount: localAmount(batch.heldAmount.value, batch.heldAmount.currency, i18n.tag),
              })}
            </label>
          ) : null}
          {approving && !agreeing ? <PayWhen later={later} onLater={setLater} value={payAtLocal} onChange={setPayAtLocal} /> : null}
          {asking === 'reschedule' ? <PayAtInput value={payAtLocal} onChange={setPayAtLocal} /> : null}
          {approving && !agreeing && batch.changedAccountCount > 0 ? (
            <label class="check">
              <input
                type="checkbox"
                checked={includeChanged}
                onChange={(event) => setIncludeChanged((event.target as HTMLInputElement).checked)}
              />{' '}
              {t('batch.includeChanged', {
                count: batch.changedAccountCount,
                amount: localAmount(batch.changedAccountAmount.value, batch.changedAccountAmount.currency, i18n.tag),
              })}
            </label>
          ) : null}
          <div class="button-row">
            <button
              type="button"
              ref={confirmRef}
              class={asking === 'cancel' || asking === 'discard' ? 'danger' : asking === 'startAnyway' ? '' : 'primary'}
              disabled={busy}
              onClick={() => void run(asking)}
            >
              {agreeing
                ? t('batch.agree')
                : asking === 'approve' && !starts
                  ? t('batch.addApproval')
                  : later && approving
                    ? t('batch.schedule')
                    : t(labels[asking])}
            </button>
            {agreeing ? (
              <button type="button" disabled={busy} onClick={() => setOwn(true)}>
                {t('batch.chooseOtherwise')}
              </button>
            ) : null}
            <button type="button" disabled={busy} onClick={() => (setAsking(undefined), setOwn(false))}>
              {t('common.back')}
            </button>
          </div>
        </div>
      )}
      {error === undefined ? null : <ErrorNotice error={error} />}
      {/* Only while the refused approval is still one this caller may make (the Approve button's rule). */}
      {refused !== undefined && asking === undefined && actions.includes(refused.action) ? (
        <div class="notice start-anyway">
          <p>{t('batch.startAnywayNote')}</p>
          <button type="button" disabled={busy} onClick={() => setAsking('startAnyway')}>
            {t('batch.startAnyway')}
          </button>
        </div>
      ) : null}
    </section>
  );
}
