import type { BatchItemStatus } from '../../db/generated/enums.ts';
import type { CreateOutcome } from '../../payments/attempt.ts';
import type { BillingDetails, Payment } from '../../payout/models.ts';

/**
 * What a review (review-service.ts) makes of a NEEDS_REVIEW row: its payment is read again
 * (for a `batch.previous-attempt` row, the earlier payment, which is the one that may have
 * paid) and the row takes what the answer proves. Never a send: a review only reads.
 *
 * | read answers                   | verdict               | row becomes                                          |
 * |--------------------------------|-----------------------|------------------------------------------------------|
 * | COMPLETED                      | paid                  | COMPLETED (card data dropped)                        |
 * | FAILED / EXPIRED               | failed / expired      | FAILED / EXPIRED: retryFailedItems pays it again     |
 * | `payout.payment.not-found`     | not-created           | FAILED `review.not-created`: paid again likewise     |
 * | READY                          | created-not-executed  | stays NEEDS_REVIEW: an execute sent earlier may      |
 * |                                |                       | still land, so it is not failed (nor paid again)     |
 * |                                |                       | until the payment leaves READY (executed, expired)   |
 * | IN_PROGRESS                    | in-progress           | IN_PROGRESS: the worker reads it to its end (the     |
 * |                                |                       | batch runs again)                                    |
 * | someone else's payment (amount | not-ours              | stays NEEDS_REVIEW: for a person                     |
 * | or provider differ, or the row |                       |                                                      |
 * | ended payout.payment.conflict) |                       |                                                      |
 * | CREATED, 5xx, timeout, refused | unknown               | stays NEEDS_REVIEW: for a later review or a person   |
 * | connection, breaker open       |                       |                                                      |
 *
 * A row settled from an earlier payment takes that payment's paymentId and attempt back:
 * the row stands for the payment that decided it, and the later id (never sent) is used
 * again should the row be paid again.
 *
 * What stays unknown a person marks (mark, with a reason; approver or admin, not the key
 * that approved the batch):
 *
 * | mark          | row becomes                            | needs                                      |
 * |---------------|----------------------------------------|--------------------------------------------|
 * | paid          | COMPLETED `review.marked-paid`         | nothing moves                              |
 * | pay-again     | FAILED `review.marked-pay-again`:      | a read now showing the payment absent,     |
 * |               | retryFailedItems pays it (new id)      | FAILED, EXPIRED, or another's (not READY:  |
 * |               |                                        | it may still be executed); a batch not     |
 * |               |                                        | cancelled; its sealed card data            |
 * | do-not-pay    | CANCELLED `review.marked-do-not-pay`   | nothing; never paid again by the gateway   |
 */
export type ReviewVerdict = 'paid' | 'failed' | 'expired' | 'not-created' | 'created-not-executed' | 'in-progress' | 'not-ours' | 'unknown';
export const reviewVerdicts = [
  'paid',
  'failed',
  'expired',
  'not-created',
  'created-not-executed',
  'in-progress',
  'not-ours',
  'unknown',
] as const satisfies readonly ReviewVerdict[];

export type ReviewMark = 'paid' | 'pay-again' | 'do-not-pay';
export const reviewMarks = ['paid', 'pay-again', 'do-not-pay'] as const satisfies readonly ReviewMark[];

export const reviewCodes = {
  notCreated: 'review.not-created',
  markedPaid: 'review.marked-paid',
  markedPayAgain: 'review.marked-pay-again',
  markedDoNotPay: 'review.marked-do-not-pay',
} as const;

/** The state a row under review is in, and the states a review or a mark moves it to. */
export const reviewStatus = 'NEEDS_REVIEW' satisfies BatchItemStatus;
const settledBy = {
  paid: 'COMPLETED',
  failed: 'FAILED',
  expired: 'EXPIRED',
  'not-created': 'FAILED',
  'in-progress': 'IN_PROGRESS',
} as const satisfies Partial<Record<ReviewVerdict, BatchItemStatus>>;
const markedAs = { paid: 'COMPLETED', 'pay-again': 'FAILED', 'do-not-pay': 'CANCELLED' } as const satisfies Record<
  ReviewMark,
  BatchItemStatus
>;

/** What a row becomes: the fields the settling statement writes (sql/settle-reviewed-rows.ts). */
export interface RowSettlement {
  to: BatchItemStatus;
  errorCode: string | null;
  errorMessage: string | null;
  billingDetails: BillingDetails | null;
  /** Final for the row's attempt (finishedAt is set); IN_PROGRESS is not. */
  finished: boolean;
}

/** The row the review read, as far as telling its payment from another's goes. */
export interface ReviewedRowFacts {
  amount: string;
  currency: string;
  providerCode: string;
  /**
   * The row's create found its paymentId holding a different payment (`payout.payment.conflict`):
   * whatever is read under that id is someone else's, whatever its amount.
   */
  conflict: boolean;
}

/** A read's answer as a verdict, with the row's change when it settles the row (null: it stays). */
export function verdictOf(
  read: CreateOutcome,
  row: ReviewedRowFacts,
): { verdict: ReviewVerdict; settlement: RowSettlement | null; detail: string } {
  switch (read.kind) {
    case 'paid':
    case 'failed':
    case 'in-progress':
    case 'ready': {
      const { payment } = read;
      if (row.conflict || !belongsTo(payment, row)) {
        return {
          verdict: 'not-ours',
          settlement: null,
          detail: `the paymentId holds another payment (${payment.amount.value} ${payment.amount.currency}, ${payment.recipientDetails.providerCode})`,
        };
      }
      if (read.kind === 'ready') {
        const detail = `created upstream, not executed so far (READY until ${payment.expirationDateTime}); an execute sent earlier may still land, so it is neither failed nor paid again until the partner executes or expires it: review it again then`;
        return { verdict: 'created-not-executed', settlement: null, detail };
      }
      const verdict =
        read.kind === 'paid'
          ? 'paid'
          : read.kind === 'in-progress'
            ? 'in-progress'
            : payment.status.value === 'EXPIRED'
              ? 'expired'
              : 'failed';
      const final = verdict !== 'in-progress';
      return {
        verdict,
        settlement: settle(verdict, {
          errorCode: final ? (payment.status.errorCode ?? null) : null,
          errorMessage: final ? (payment.status.errorMessage ?? null) : null,
          billingDetails: payment.billingDetails ?? null,
        }),
        detail: `the partner says ${payment.status.value}`,
      };
    }
    case 'not-paid':
      if (read.proof === 'absent') {
        const detail = 'the partner has no such payment: it was never created; pay it again with retryFailedItems';
        return {
          verdict: 'not-created',
          settlement: settle('not-created', { errorCode: reviewCodes.notCreated, errorMessage: detail }),
          detail,
        };
      }
      return { verdict: 'unknown', settlement: null, detail: read.error.message };
    case 'unknown':
    case 'unreachable':
      return { verdict: 'unknown', settlement: null, detail: `not settled: ${read.error.message}` };
  }
}

/** What a person's mark makes of the row. */
export function markSettlement(mark: ReviewMark, message: string): RowSettlement {
  const errorCode =
    mark === 'paid' ? reviewCodes.markedPaid : mark === 'pay-again' ? reviewCodes.markedPayAgain : reviewCodes.markedDoNotPay;
  return { to: markedAs[mark], errorCode, errorMessage: message, billingDetails: null, finished: true };
}

/** Whether "pay again" may follow what a read shows: only proof that nothing was paid or is being paid. */
export function mayPayAgainAfter(verdict: ReviewVerdict): boolean {
  return verdict === 'failed' || verdict === 'expired' || verdict === 'not-created' || verdict === 'not-ours';
}

function settle(verdict: keyof typeof settledBy, fields: Partial<RowSettlement>): RowSettlement {
  const to = settledBy[verdict];
  return { to, errorCode: null, errorMessage: null, billingDetails: null, finished: to !== 'IN_PROGRESS', ...fields };
}

/**
 * The upstream's payment under the row's paymentId is the row's own unless its amount or
 * provider differ (the row keeps only a masked recipient to compare): a payment that
 * differs is someone else's, and proves nothing about the row's.
 */
function belongsTo(payment: Payment, row: ReviewedRowFacts): boolean {
  return (
    payment.amount.value === row.amount &&
    payment.amount.currency === row.currency &&
    payment.recipientDetails.providerCode === row.providerCode
  );
}
