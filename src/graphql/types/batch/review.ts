import {
  BatchStateError,
  MAX_REASON_LENGTH,
  type ReviewedRow,
  type ReviewMark,
  reviewMarks,
  type ReviewReport,
  type ReviewVerdict,
  reviewVerdicts,
} from '../../../batch/index.ts';
import { authScopesFor } from '../../../auth/roles.ts';
import { requestActor } from '../../../audit/audit.ts';
import { builder } from '../../builder.ts';
import { Batch } from './batch.ts';
import { BatchItem, BatchItemStatusEnum } from './item.ts';
import { enumName } from '../enums.ts';
import { typedResult } from '../errors.ts';

/**
 * The way out of NEEDS_REVIEW (batch/states/review-states.ts): reviewBatchItems reads each such
 * row's payment again and settles what it proves; markBatchItem is a person's verdict on a
 * row that stays unknown. Refusals are BatchError, as the other lifecycle mutations'.
 */
const verdictMeanings: Record<ReviewVerdict, string> = {
  paid: 'The partner says COMPLETED: the row becomes COMPLETED.',
  failed: 'The partner says FAILED: the row becomes FAILED, payable again with retryFailedItems.',
  expired: 'The partner says EXPIRED: the row becomes EXPIRED, payable again.',
  'not-created': 'The partner has no such payment: nothing was paid; the row becomes FAILED, payable again.',
  'created-not-executed': 'The payment is READY and was never executed from here: the row becomes FAILED, payable again.',
  'in-progress': 'The partner says IN_PROGRESS: the row follows it.',
  'not-ours': 'The payment under this id is not the row’s (other amount or recipient): the row stays NEEDS_REVIEW.',
  unknown: 'The payment could not be read now: the row stays NEEDS_REVIEW.',
};

const markMeanings: Record<ReviewMark, string> = {
  paid: 'It was paid: the row becomes COMPLETED; no money moves.',
  'pay-again': 'It was not paid: the row becomes FAILED, for retryFailedItems (only once a read shows it unpaid).',
  'do-not-pay': 'Never pay it from here: the row becomes CANCELLED.',
};

const ReviewVerdictEnum = builder.enumType('ReviewVerdict', {
  description: 'What a read of a NEEDS_REVIEW row’s payment proved.',
  values: Object.fromEntries(
    reviewVerdicts.map((verdict) => [enumName(verdict), { value: verdict, description: verdictMeanings[verdict] }]),
  ) as Record<string, { value: (typeof reviewVerdicts)[number]; description: string }>,
});

const ReviewMarkEnum = builder.enumType('ReviewMark', {
  description:
    'A person’s verdict on a row no read settles: PAID (no money moves), PAY_AGAIN (FAILED, for retryFailedItems), DO_NOT_PAY (CANCELLED).',
  values: Object.fromEntries(reviewMarks.map((mark) => [enumName(mark), { value: mark, description: markMeanings[mark] }])) as Record<
    string,
    { value: ReviewMark; description: string }
  >,
});

const ReviewedRowType = builder.objectRef<ReviewedRow>('ReviewedRow').implement({
  description: 'One NEEDS_REVIEW row a review read, and what the read proved.',
  fields: (t) => ({
    line: t.exposeInt('line', { description: 'The row’s file line.' }),
    paymentId: t.exposeID('paymentId', {
      description: 'The payment read: the row’s own, or for a batch.previous-attempt row the earlier one.',
    }),
    verdict: t.field({ type: ReviewVerdictEnum, description: 'What the read proved.', resolve: (r) => r.verdict }),
    status: t.field({
      type: BatchItemStatusEnum,
      description: 'The row’s status now: NEEDS_REVIEW when the read settled nothing.',
      resolve: (r) => r.status,
    }),
    message: t.exposeString('message', { description: 'What happened to the row, in words.' }),
  }),
});

const BatchReview = builder.objectRef<ReviewReport>('BatchReview').implement({
  description: 'What reviewBatchItems read and settled.',
  fields: (t) => ({
    batch: t.field({ type: Batch, description: 'The batch after the review.', resolve: (r) => r.batch }),
    settled: t.exposeInt('settled', { description: 'Rows settled by this review.' }),
    unsettled: t.exposeInt('unsettled', { description: 'Rows still NEEDS_REVIEW: review again later, or mark them.' }),
    rows: t.field({
      type: [ReviewedRowType],
      description: 'Every NEEDS_REVIEW row the review read, in line order.',
      resolve: (r) => r.rows,
    }),
  }),
});

builder.mutationFields((t) => ({
  reviewBatchItems: t.field({
    type: BatchReview,
    description:
      'Reads the payment of each NEEDS_REVIEW row again and settles what the partner proves: COMPLETED → COMPLETED; FAILED/EXPIRED, not found, or READY (never executed from here) → FAILED/EXPIRED, payable again with retryFailedItems; IN_PROGRESS → IN_PROGRESS. What cannot be read stays NEEDS_REVIEW. Never sends a payment.',
    authScopes: authScopesFor('reviewBatchItems'),
    errors: typedResult('ReviewBatchItems', [BatchStateError], 'review', 'What the review read and settled, and the batch after it.'),
    args: { id: t.arg.id({ required: true, description: 'The batch’s id.' }) },
    resolve: (_root, { id }, { services, caller, role, via, requestId, client }) =>
      services.reviews.review(String(id), requestActor({ role, caller, via, requestId, client })),
  }),
  markBatchItem: t.field({
    type: BatchItem,
    description:
      'A person’s verdict on a NEEDS_REVIEW row, with a reason (audited): PAID, PAY_AGAIN (only once a read shows the payment is not COMPLETED or IN_PROGRESS), DO_NOT_PAY. Approver or admin, and not the key that approved the batch (SECOND_PERSON_REQUIRED).',
    authScopes: authScopesFor('markBatchItem'),
    errors: typedResult('MarkBatchItem', [BatchStateError], 'item', 'The row with its new status.'),
    args: {
      id: t.arg.id({ required: true, description: 'The batch.' }),
      line: t.arg.int({ required: true, description: 'The row’s file line (BatchItem.line).' }),
      mark: t.arg({ type: ReviewMarkEnum, required: true, description: 'The verdict.' }),
      reason: t.arg.string({
        required: true,
        description: `Why, for the audit trail: 1 to ${MAX_REASON_LENGTH} characters.`,
        validate: { maxLength: MAX_REASON_LENGTH },
      }),
    },
    resolve: (_root, { id, line, mark, reason }, { services, caller, role, via, requestId, client }) =>
      services.reviews.mark(String(id), { line, mark, reason, caller, by: requestActor({ role, caller, via, requestId, client }) }),
  }),
}));
