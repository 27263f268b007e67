import { useEffect, useState } from 'preact/hooks';
import { gql, refusal, type Access } from './api.ts';
import { useI18n, type Translator } from './i18n.ts';
import { ErrorNotice, Money } from './parts.tsx';
import { ReviewItemsDocument as REVIEW_ITEMS, ReviewDocument as REVIEW, MarkDocument as MARK } from './gql/graphql.ts';
import type { BatchDetail, BatchItem } from './queries.ts';
import type { ReviewMark, ReviewVerdict } from './gql/graphql.ts';

/**
 * Rows whose outcome nothing settled (NEEDS_REVIEW): "Check again with the partner" reads
 * each one's payment again (reviewBatchItems; either side may, it only settles what the
 * partner proves), and each row still unknown can be marked by an approver or admin other
 * than the batch's approver (markBatchItem), with a reason.
 */

type Verdict = ReviewVerdict;
type Mark = ReviewMark;
type Refusal = { __typename: 'BatchError'; code: string; message: string };
type ReviewResult =
  | {
      __typename: 'ReviewBatchItemsSuccess';
      review: { settled: number; unsettled: number; rows: Array<{ line: number; paymentId: string; verdict: Verdict; status: string }> };
    }
  | Refusal;
type MarkResult = { __typename: 'MarkBatchItemSuccess'; item: { line: number; status: string } } | Refusal;
type ReviewRow = Pick<BatchItem, 'line' | 'paymentId' | 'attempt' | 'status' | 'provider' | 'amount' | 'errorCode' | 'errorMessage'>;

const MARKS: readonly Mark[] = ['PAID', 'PAY_AGAIN', 'DO_NOT_PAY'];

export function ReviewPanel({ batch, access, onChanged }: { batch: BatchDetail; access: Access; onChanged: () => void }) {
  const i18n = useI18n();
  const { t } = i18n;
  const waiting = batch.counts.find((c) => c.status === 'NEEDS_REVIEW')?.count ?? 0;
  const [rows, setRows] = useState<ReviewRow[] | undefined>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [outcome, setOutcome] = useState<string | undefined>();

  useEffect(() => {
    if (waiting === 0) return setRows([]);
    let current = true;
    gql<{ batch: { items: { edges: Array<{ node: ReviewRow }> } } | null }>(REVIEW_ITEMS, { id: batch.id }).then(
      (data) => current && setRows(data.batch?.items.edges.map((edge) => edge.node) ?? []),
      (failure: unknown) => current && setError(failure),
    );
    return () => {
      current = false;
    };
  }, [batch.id, waiting]);

  if (waiting === 0 && outcome === undefined) return null;
  // Reading again settles only what the partner proves: either side may ask. Marking is a decision: approvers only, never the batch's own approver.
  const mayCheck = access.may.cancel;
  const ownApproval = !access.anonymous && access.caller !== undefined && batch.approvedBy === access.caller;
  const mayMark = access.may.approve && !ownApproval;

  async function checkAgain() {
    setBusy(true);
    setError(undefined);
    try {
      const { result } = await gql<{ result: ReviewResult }>(REVIEW, { id: batch.id });
      if (result.__typename === 'BatchError') setError(refusal(result));
      else setOutcome(summaryOf(result.review, i18n));
      onChanged();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }

  return (
    <section class="notice notice-warn review" aria-labelledby="review-title">
      <h2 id="review-title">{waiting > 0 ? t('review.title', { count: waiting }) : t('review.titleDone')}</h2>
      {waiting > 0 ? <p>{t('review.intro')}</p> : null}
      {mayCheck && waiting > 0 ? (
        <div class="button-row">
          <button type="button" class="primary" disabled={busy} onClick={() => void checkAgain()}>
            {busy ? t('review.checking') : t('review.check')}
          </button>
        </div>
      ) : null}
      <div role="status" class="status-line">
        {outcome ?? ''}
      </div>
      {error === undefined ? null : <ErrorNotice error={error} />}
      {waiting > 0 && rows !== undefined && rows.length > 0 ? (
        <>
          {access.may.approve && ownApproval ? <p>{t('review.ownApproval')}</p> : null}
          <ul class="review-rows">
            {rows.map((row) => (
              <ReviewRowItem
                key={row.paymentId}
                batchId={batch.id}
                row={row}
                mayMark={mayMark}
                onMarked={() => {
                  setOutcome(undefined);
                  onChanged();
                }}
              />
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}

function ReviewRowItem({ batchId, row, mayMark, onMarked }: { batchId: string; row: ReviewRow; mayMark: boolean; onMarked: () => void }) {
  const { t } = useI18n();
  const [mark, setMark] = useState<Mark | undefined>();
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const id = `review-${row.line}`;

  async function save() {
    if (mark === undefined) return;
    setBusy(true);
    setError(undefined);
    try {
      const { result } = await gql<{ result: MarkResult }>(MARK, { id: batchId, line: row.line, mark, reason });
      if (result.__typename === 'BatchError') setError(refusal(result));
      else onMarked();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }

  return (
    <li class="review-row">
      <p class="review-what">
        <strong>{t('review.row', { line: row.line })}</strong> · <span class="mono">{row.paymentId}</span> · <Money value={row.amount} />
      </p>
      <p class="review-why">{row.errorMessage ?? row.errorCode ?? ''}</p>
      {mayMark ? (
        <form
          class="review-mark"
          aria-labelledby={`${id}-legend`}
          onSubmit={(event) => {
            event.preventDefault();
            void save();
          }}
        >
          <fieldset>
            <legend id={`${id}-legend`}>{t('review.markLegend', { line: row.line })}</legend>
            {MARKS.map((value) => (
              <label class="check" key={value}>
                <input type="radio" name={`${id}-mark`} value={value} checked={mark === value} onChange={() => setMark(value)} />{' '}
                {t(`review.mark.${value}` as const)}
              </label>
            ))}
          </fieldset>
          <label class="review-reason" for={`${id}-reason`}>
            {t('review.reason')}
          </label>
          <textarea
            id={`${id}-reason`}
            rows={2}
            maxLength={500}
            value={reason}
            onInput={(event) => setReason((event.currentTarget as HTMLTextAreaElement).value)}
          />
          <div class="button-row">
            <button
              type="submit"
              class={mark === 'DO_NOT_PAY' ? 'danger' : 'primary'}
              disabled={busy || mark === undefined || reason.trim() === ''}
            >
              {t('review.save')}
            </button>
          </div>
          {error === undefined ? null : <ErrorNotice error={error} />}
        </form>
      ) : null}
    </li>
  );
}

function summaryOf(
  review: { settled: number; unsettled: number; rows: Array<{ line: number; verdict: Verdict }> },
  i18n: Translator,
): string {
  const { t } = i18n;
  const verdicts = review.rows
    .map((row) => `${t('review.row', { line: row.line })}: ${t(`review.verdict.${row.verdict}` as const)}`)
    .join('; ');
  return `${t('review.outcome', { settled: review.settled, unsettled: review.unsettled })}${verdicts === '' ? '' : ` ${verdicts}.`}`;
}
