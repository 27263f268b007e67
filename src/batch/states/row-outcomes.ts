import type { BatchItemStatus } from '../../db/generated/enums.ts';
import { TrackedStatus } from '../../db/generated/enums.ts';
import type { Outcome, SendOutcome } from '../../payments/attempt.ts';
import { PaymentConflictError, type PayoutError } from '../../payout/errors.ts';
import type { Payment } from '../../payout/models.ts';

/**
 * A row's states. Each is written (durably) before the call it leads to, so a worker that
 * dies anywhere leaves the next one a state that says what to do.
 *
 * | state       | next call                         | if the worker dies here                       |
 * |-------------|-----------------------------------|-----------------------------------------------|
 * | PENDING     | create                            | nothing was sent: create                      |
 * | CREATING    | create again, same paymentId      | `resource.exists` → read back and compare     |
 * | READY       | execute                           | the payment is READY upstream: execute        |
 * | EXECUTING   | read back, execute only if READY  | read back first                               |
 * | IN_PROGRESS | read back (or a webhook settles)  | read back later                               |
 *
 * What an attempt's outcome (payments/attempt.ts) makes of the row. "Retries" count the
 * sends of one step (create; execute, across READY ⇄ EXECUTING), never reads, so every
 * step sends at most `maxRetries + 1` times (each send is itself at most PAYOUT_MAX_RETRIES
 * + 1 requests when answers are lost):
 *
 * | after   | outcome            | row becomes                                                      |
 * |---------|--------------------|------------------------------------------------------------------|
 * | create  | ready              | EXECUTING (if the batch was cancelled meanwhile: CANCELLED,      |
 * |         |                    | batch.cancelled-after-create, with the payment's expiry)         |
 * | any     | paid               | COMPLETED                                                        |
 * | any     | in-progress        | IN_PROGRESS, read back later with growing delays                 |
 * | any     | failed             | FAILED or EXPIRED, with the upstream's code                      |
 * | any     | unreachable        | the state it had before the attempt (READY before an execute:    |
 * |         |                    | the payment exists upstream), again later; no retry spent        |
 * | create  | not-paid, refused  | FAILED (a paymentId taken by another payment: NEEDS_REVIEW)       |
 * | create  | not-paid, absent   | PENDING again later while retries last, then FAILED              |
 * | execute | not-paid, refused  | FAILED (payment not found: NEEDS_REVIEW)                          |
 * | execute | not-paid, absent   | NEEDS_REVIEW (a payment created here cannot vanish)               |
 * | execute | not-paid, ready    | READY again later while retries last, then EXECUTING: only read  |
 * |         |                    | back until the payment leaves READY (an execute sent earlier may |
 * |         |                    | still land: READY is never proof that nothing will be paid)      |
 * | create  | unknown            | CREATING: created again (same paymentId) later while retries     |
 * |         |                    | last, then only read back until a read settles it                |
 * | execute | unknown            | EXECUTING: read back later, executed again only if READY while   |
 * |         |                    | retries last, then only read back until a read settles it        |
 * | read    | unknown or READY   | stays IN_PROGRESS, read back later                               |
 * | create  | throttled (429)    | CREATING: rests until Retry-After, no retry spent; created again |
 * |         |                    | with the same paymentId (a 429 proves nothing)                   |
 * | execute | throttled (429)    | EXECUTING: rests until Retry-After, no retry spent; read back,   |
 * |         |                    | executed again only if READY                                     |
 *
 * "Unknown" never ends a row: the partner being unreachable, slow or garbled for a while
 * proves nothing, and the row is read back (with delays up to a minute) until it answers.
 * Only FAILED and EXPIRED rows are paid again, on request (retryFailedItems), under a new
 * paymentId; NEEDS_REVIEW is never paid again automatically: a review reads its payment
 * again and settles it, or a person marks it (review-states.ts).
 */
export type Stage = 'create' | 'execute' | 'read';

/** The row's next state and the fields written with it. */
export interface RowChange {
  to: BatchItemStatus;
  errorCode: string | null;
  errorMessage: string | null;
  payment: Payment | null;
  /** What the payment record says when no upstream Payment settles it: a lost answer, a refused create. */
  localPayment: typeof TrackedStatus.UNKNOWN | typeof TrackedStatus.REJECTED | null;
  retries: number;
  /** Due again after this long (null: due now, or never for final rows). */
  delayMs: number | null;
  finished: boolean;
}

export interface RetryPolicy {
  maxRetries: number;
  /** Delay before the n-th retry (0-based), with jitter. */
  delay: (retry: number) => number;
  /** Delay before the n-th read of an IN_PROGRESS payment. */
  inProgressDelay: (check: number) => number;
}

/**
 * Created and READY: the write before execute. `retries` are the execute step's sends so
 * far: 0 after a create, the row's count when READY comes round again.
 */
export function startExecuting(payment: Payment | null, retries: number): RowChange {
  return change('EXECUTING', { payment, retries });
}

/**
 * A row read READY in a batch that sends no more (decision 0027): the payment exists upstream
 * and nobody will execute it; written READY, which the batch's cancel ends as created, not
 * executed (the row table's readyInCancelled).
 */
export function createdNotExecuted(payment: Payment, retries: number): RowChange {
  return change('READY', { payment, retries });
}

/** A row read back absent in a batch that sends no more: waits again, which its batch's cancel ends as never sent (unsentInCancelled). */
export function neverCreated(retries: number): RowChange {
  return change('PENDING', { retries });
}

/** Whether a row's step has spent its sends: from here on it is only read back. */
export function sendsSpent(retries: number, policy: RetryPolicy): boolean {
  return retries >= policy.maxRetries;
}

/** A row that must not be paid under a new id (its previous attempt turned out paid, or cannot be read). */
export function holdForReview(errorCode: string, errorMessage: string, retries: number): RowChange {
  return change('NEEDS_REVIEW', { errorCode, errorMessage, retries, finished: true });
}

/** `before` is the row's state when the attempt began, where an unreachable partner leaves a create or a read. */
export function changeAfter(stage: Stage, outcome: SendOutcome, retries: number, policy: RetryPolicy, before: BatchItemStatus): RowChange {
  switch (outcome.kind) {
    case 'unreachable':
      // Nothing was sent. Before an execute the payment exists upstream whatever state the
      // row was claimed in: READY says so (a cancel then ends it as created, not executed).
      return { ...change(stage === 'execute' ? 'READY' : before, { retries }), ...errorOf(outcome.error), delayMs: policy.delay(retries) };
    case 'throttled':
      // The partner's pace, not this payment's trouble (decision 0011): the row rests in the
      // state written before the call, its retries untouched.
      return {
        ...wait(stage === 'create' ? 'CREATING' : stage === 'execute' ? 'EXECUTING' : 'IN_PROGRESS', retries, policy, outcome.error),
        retries,
        delayMs: Math.max(outcome.restMs ?? 0, policy.delay(0)),
      };
    case 'ready':
      if (stage === 'create') return startExecuting(outcome.payment, 0);
      // A payment in progress never reads READY again: look again later.
      return wait(stage === 'read' ? 'IN_PROGRESS' : 'EXECUTING', retries, policy, null);
    case 'paid':
      return final('COMPLETED', outcome.payment);
    case 'in-progress':
      return {
        ...change('IN_PROGRESS', { payment: outcome.payment, retries: stage === 'read' ? retries + 1 : 0 }),
        delayMs: policy.inProgressDelay(stage === 'read' ? retries + 1 : 0),
      };
    case 'failed':
      return final(outcome.payment.status.value === 'EXPIRED' ? 'EXPIRED' : 'FAILED', outcome.payment);
    case 'not-paid':
      return notPaid(stage, outcome, retries, policy);
    case 'unknown':
      if (stage === 'read') return wait('IN_PROGRESS', retries, policy, outcome.error);
      // A read-back that could not reach the partner spends nothing: the partner was away, not this payment.
      if (outcome.unread === true)
        return { ...wait(stage === 'create' ? 'CREATING' : 'EXECUTING', retries, policy, outcome.error), retries };
      return wait(stage === 'create' ? 'CREATING' : 'EXECUTING', Math.min(retries, policy.maxRetries), policy, outcome.error);
  }
}

function notPaid(stage: Stage, outcome: Extract<Outcome, { kind: 'not-paid' }>, retries: number, policy: RetryPolicy): RowChange {
  const { error } = outcome;
  // Nothing exists upstream under this id after a refused or absent create; a conflict
  // means the id belongs to someone else's payment, which is not ours to mark.
  const localPayment = stage === 'create' && !(error instanceof PaymentConflictError) ? TrackedStatus.REJECTED : null;
  if (outcome.proof === 'refused' || (outcome.proof === 'absent' && stage !== 'create')) {
    // A payment this worker created that the upstream cannot find is a puzzle, not a failure.
    const puzzling = error instanceof PaymentConflictError || (stage !== 'create' && error.code === 'payout.payment.not-found');
    return { ...failure(puzzling ? 'NEEDS_REVIEW' : 'FAILED', error, retries), localPayment };
  }
  if (outcome.proof === 'ready') {
    // READY after an execute proves only that it has not landed yet: one sent earlier (by
    // this worker, or by one stalled past its lease) may still land. Executing again is
    // safe (same paymentId); giving up is not: once the sends are spent the row is only
    // read back until the payment leaves READY (executed, or expired upstream).
    if (retries < policy.maxRetries)
      return { ...change('READY', { retries: retries + 1 }), ...errorOf(error), delayMs: policy.delay(retries) };
    return { ...wait('EXECUTING', retries, policy, null), ...errorOf(error) };
  }
  if (error.retryable && retries < policy.maxRetries) {
    return { ...change('PENDING', { retries: retries + 1, localPayment }), ...errorOf(error), delayMs: policy.delay(retries) };
  }
  return { ...failure('FAILED', error, retries), localPayment };
}

/**
 * Not settled: the same state again later. Never final: the worker stops sending once the
 * step's sends are spent (sendsSpent) and only reads back, for as long as it takes.
 */
function wait(state: BatchItemStatus, retries: number, policy: RetryPolicy, error: PayoutError | null): RowChange {
  const localPayment = error !== null && state !== 'IN_PROGRESS' ? TrackedStatus.UNKNOWN : null;
  return {
    ...change(state, { retries: retries + 1, localPayment }),
    ...(error === null ? {} : errorOf(error)),
    delayMs: state === 'IN_PROGRESS' ? policy.inProgressDelay(retries + 1) : policy.delay(retries),
  };
}

function change(to: BatchItemStatus, fields: Partial<RowChange>): RowChange {
  return {
    to,
    errorCode: null,
    errorMessage: null,
    payment: null,
    localPayment: null,
    retries: 0,
    delayMs: null,
    finished: false,
    ...fields,
  };
}

function final(to: BatchItemStatus, payment: Payment): RowChange {
  return change(to, {
    payment,
    errorCode: payment.status.errorCode ?? null,
    errorMessage: payment.status.errorMessage ?? null,
    finished: true,
  });
}

function failure(to: 'FAILED' | 'NEEDS_REVIEW', error: PayoutError, retries: number): RowChange {
  return { ...change(to, { finished: true, retries }), ...errorOf(error) };
}

function errorOf(error: PayoutError): { errorCode: string; errorMessage: string } {
  return { errorCode: error.code, errorMessage: error.message };
}
