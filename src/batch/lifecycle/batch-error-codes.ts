import { GatewayError, type ErrorKind } from '../../lib/gateway-error.ts';

/**
 * Every code a refused lifecycle step carries (BatchStateError, docs/api/error-codes.md as
 * BATCH_…, REVIEW_…, SECOND_PERSON_REQUIRED), with what it means. The GraphQL ErrorCode enum
 * is made from this table, so a new code needs its meaning here before it compiles.
 */
export const batchErrorMeanings = {
  'batch.not-found': 'No batch has this id.',
  'batch.changed': 'The batch or row changed while the step ran; read it and try again.',
  'batch.same-person': 'Maker-checker: the key that uploaded the batch may not approve it.',
  'batch.rejected': 'The batch has errors; fix the file, or approve with validRowsOnly to pay only its valid rows.',
  'batch.file-errors': 'The file itself has errors (not its rows): it cannot be approved.',
  'batch.no-valid-rows': 'No row of the batch can be paid.',
  'batch.not-approvable': 'The batch is in a state that cannot be approved.',
  'batch.approval-differs':
    'Other people approved another choice (rows or time to pay) that awaits more approvals: agree to it, or start a new round (newRound) that replaces theirs.',
  'batch.agree-with-choice':
    'agree takes the other approvers’ choice: it is given alone, without payAt, includeHeld, includeChangedAccounts or newRound.',
  'batch.nothing-to-agree': 'No approval of the batch awaits another: approve with your own choice.',
  'batch.earlier-needs-approvals':
    'The batch was approved by more than one person for its time: an earlier time needs their approvals again.',
  'batch.new-duplicates': 'Rows repeat a batch approved since the import; they are now held. Approve again.',
  'batch.balance-unknown': 'The balance could not be read; approve later, or with ignoreBalance.',
  'batch.insufficient-funds':
    'The balance does not cover this batch, the batches already approved and their commission; top up, or approve with ignoreBalance.',
  'batch.pay-at-invalid': 'The time to pay is not a date and time.',
  'batch.pay-at-past': 'The time to pay has passed: approve without one to pay now, or give a later time.',
  'batch.pay-at-too-far': 'The time to pay is further ahead than SCHEDULE_HORIZON_DAYS allows.',
  'batch.not-scheduled': 'Only a SCHEDULED batch can be rescheduled.',
  'batch.not-cancellable': 'The batch is in a state that cannot be cancelled.',
  'batch.not-dismissable': 'Only a batch that paid nothing (rejected, or discarded before approval) can be dismissed from the list.',
  'batch.not-pausable': 'Only a RUNNING batch can be paused.',
  'batch.not-resumable': 'Only a PAUSED batch can be resumed.',
  'batch.not-retryable': 'The batch is still running, or in a state whose rows are not paid again.',
  'batch.nothing-to-retry': 'No FAILED or EXPIRED row can be paid again.',
  'second-person.required': 'Maker-checker: a key other than the one that uploaded (retry) or approved (mark) the batch must do this.',
  'review.reason-required': 'Marking a row needs a reason.',
  'review.reason-too-long': 'The reason is too long.',
  'review.no-such-row': 'The batch has no row on this line.',
  'review.not-under-review': 'The row is not NEEDS_REVIEW.',
  'review.batch-cancelled': 'The batch was cancelled: its rows are not paid again.',
  'review.card-data-gone': 'The row’s card data is past CARD_DATA_RETENTION_DAYS: upload the row again to pay it.',
  'review.paid-upstream': 'The partner says the payment is COMPLETED: it is not paid again.',
  'review.in-progress-upstream': 'The partner says the payment is IN_PROGRESS: check again later.',
  'review.ready-upstream':
    'The partner says the payment is READY: an execute sent earlier may still land, so it is not paid again until the partner executes or expires it.',
  'review.unreadable': 'The payment could not be read now; it is paid again only once a read shows it unpaid.',
} as const;

export type BatchErrorCode = keyof typeof batchErrorMeanings;
export const batchErrorCodes = Object.keys(batchErrorMeanings) as BatchErrorCode[];

/** The codes that are not a no of the batch's state or of who asked (the kind of every other code). */
const batchErrorKinds: Partial<Record<BatchErrorCode, ErrorKind>> = {
  'batch.not-found': 'not-found',
  'review.no-such-row': 'not-found',
  'batch.changed': 'conflict',
  'batch.pay-at-invalid': 'input',
  'batch.agree-with-choice': 'input',
  'review.reason-required': 'input',
  'review.reason-too-long': 'input',
};

/** A lifecycle step refused: the batch is in the wrong state, or the wrong person asked. */
export class BatchStateError extends GatewayError {
  readonly kind: ErrorKind;
  constructor(
    readonly code: BatchErrorCode,
    message: string,
  ) {
    super(message);
    this.kind = batchErrorKinds[code] ?? 'state';
    this.name = 'BatchStateError';
  }
}
