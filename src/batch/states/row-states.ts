import { BatchItemStatus, BatchStatus } from '../../db/generated/enums.ts';
import { sqlList } from '../../db/sql-list.ts';
import { batchStates, payingStates, readOnlyStates, type BatchGuard } from './batch-states.ts';

/**
 * Why a row ended CANCELLED. `notSent`: nothing exists upstream under its paymentId.
 * `afterCreate`: the create took effect (the row was CREATING or READY when the batch was
 * cancelled), so the upstream holds a READY payment until it expires there; the gateway
 * refuses to execute it (payments/payment-service.ts) and reconciliation reports it while
 * it is open upstream, and as a discrepancy for a person should it ever be executed.
 */
export const cancelCodes = { notSent: 'batch.cancelled', afterCreate: 'batch.cancelled-after-create' } as const;

/**
 * Who moves a row from one state to another, and where the code that does it lives. A new
 * step or state is added here first; the lists below, the SQL built from them (the cancel
 * and pause rules of sql/move-items.ts), the model's tables (scripts/model/tables.ts) and
 * test/model/row-table.test.ts follow.
 */
export type RowStep =
  /** import/import-state.ts: each row of the file is written. */
  | 'import'
  /** lifecycle/batch-service.ts approve: sql/hold-approved-repeats.ts, and includeHeld. */
  | 'approve'
  /** sql/cancel-imported-rows.ts: the batch was cancelled (or given up) while its file was read. */
  | 'cancel-import'
  /** sql/begin-create.ts: durable before the create. */
  | 'begin-create'
  /** pay/pay-row.ts previousAttemptNotPaid: a retried row's earlier paymentId is read first. */
  | 'previous-attempt'
  /** pay/pay-row.ts unreadable: card data that cannot be opened. */
  | 'unreadable'
  /** startExecuting: durable before the execute (onlyIfRunning). */
  | 'start-execute'
  /** changeAfter: what an attempt's outcome (payments/attempt.ts) makes of the row, written by sql/move-items.ts. */
  | 'attempt'
  /** lifecycle/batch-service.ts cancel (READY rows: lifecycle/sql/cancel-created-rows.ts), and sql/move-items.ts for a worker's write in a cancelled batch. */
  | 'cancel'
  /** sql/move-items.ts: the write before an execute, in a batch paused meanwhile. */
  | 'pause'
  /** funds/sql/requeue-unfunded.ts: rows that failed for lack of funds, paid again once the balance covers them. */
  | 'funds'
  /** lifecycle/batch-service.ts retryFailed (retryFailedItems): lifecycle/sql/retry-failed-rows.ts. */
  | 'retry-failed'
  /**
   * sql/settle-from-payments.ts: a payment seen final outside the worker (webhook, read-back,
   * reconciliation), for a row no worker holds: the worker's later writes are fenced by its
   * lease token and the state it last wrote, which the settle clears and changes.
   */
  | 'settle'
  /** review/review-service.ts review: a read settles a NEEDS_REVIEW row (review-states.ts verdictOf). */
  | 'review'
  /** review/review-service.ts mark: a person settles it (review-states.ts). */
  | 'mark';

/**
 * A worker's write that its batch's state turns into another (sql/move-items.ts): the
 * state the worker wrote (`writes`), whether it was the write before an execute
 * (`onlyIfRunning`; absent: either), and the batch states in which the row takes the
 * transition's `to` (and `code`) instead.
 */
export interface RowOverride {
  writes: BatchItemStatus;
  onlyIfRunning?: true;
  batch: readonly BatchStatus[];
}

export interface RowTransition {
  /** null: the row is written in `to`. */
  from: BatchItemStatus | null;
  to: BatchItemStatus;
  by: RowStep;
  when: string;
  /** The error code the step writes with it, when the step has its own. */
  code?: string;
  override?: RowOverride;
}

const cancelledBatch = [batchStates.cancelled] as const;
/** A batch neither paying nor paused: the write before an execute ends the row there. */
const notWorkingBatch = Object.values(BatchStatus).filter((state) => !payingStates.includes(state) && !readOnlyStates.includes(state));
const unsentInCancelled: RowOverride = { writes: 'PENDING', batch: cancelledBatch };
const readyInCancelled: RowOverride = { writes: 'READY', batch: cancelledBatch };
const executeInStopped: RowOverride = { writes: 'EXECUTING', onlyIfRunning: true, batch: notWorkingBatch };
const executeInPaused: RowOverride = { writes: 'EXECUTING', onlyIfRunning: true, batch: readOnlyStates };

/**
 * The row lifecycle. A row per allowed move; anything else changes nothing (every write
 * names the states it moves from, and the worker's is fenced by its lease and the state it
 * last wrote). The `attempt` rows are what changeAfter can give for each stage's outcomes
 * (test/model/row-table.test.ts); the `cancel` and `pause` rows with an `override` are the
 * rules sql/move-items.ts builds its CASE from.
 */
// prettier-ignore
export const rowTransitions: readonly RowTransition[] = [
  { from: null,           to: 'PENDING',      by: 'import',           when: 'a valid row, to be paid once the batch is approved' },
  { from: null,           to: 'INVALID',      by: 'import',           when: 'the row failed validation: never paid' },
  { from: null,           to: 'DUPLICATE',    by: 'import',           when: 'it repeats a paying or recent payment, or another row of the file: held' },
  { from: 'PENDING',      to: 'DUPLICATE',    by: 'approve',          when: 'it repeats a row of a batch approved since the import: held' },
  { from: 'DUPLICATE',    to: 'PENDING',      by: 'approve',          when: 'approved with includeHeld: the approver pays it anyway' },
  { from: 'PENDING',      to: 'CANCELLED',    by: 'cancel-import',    when: 'cancelled while its file was read', code: cancelCodes.notSent },
  { from: 'DUPLICATE',    to: 'CANCELLED',    by: 'cancel-import',    when: 'cancelled while its file was read', code: cancelCodes.notSent },
  { from: 'PENDING',      to: 'CREATING',     by: 'begin-create',     when: 'claimed, in its call slot: written before the create' },
  { from: 'CREATING',     to: 'CREATING',     by: 'begin-create',     when: 'claimed again after a create whose answer was lost: created again, same paymentId' },
  { from: 'PENDING',      to: 'PENDING',      by: 'previous-attempt', when: 'the earlier paymentId reads READY or cannot be read: later, no retry spent' },
  { from: 'PENDING',      to: 'NEEDS_REVIEW', by: 'previous-attempt', when: 'the earlier paymentId is paid or in progress: not paid again (holdForReview)' },
  { from: 'PENDING',      to: 'PENDING',      by: 'unreadable',       when: 'sealed under a data key this worker lacks: later' },
  { from: 'CREATING',     to: 'CREATING',     by: 'unreadable',       when: 'sealed under a data key this worker lacks: later' },
  { from: 'PENDING',      to: 'FAILED',       by: 'unreadable',       when: 'card data gone or not authentic, before any create' },
  { from: 'CREATING',     to: 'NEEDS_REVIEW', by: 'unreadable',       when: 'card data gone or not authentic once a create may have been sent (holdForReview)' },
  { from: 'READY',        to: 'EXECUTING',    by: 'start-execute',    when: 'claimed READY: written before the execute, while the batch runs' },
  { from: 'CREATING',     to: 'PENDING',      by: 'attempt',          when: 'create: unreachable (claimed PENDING), or absent while retries last' },
  { from: 'CREATING',     to: 'CREATING',     by: 'attempt',          when: 'create: unknown, or unreachable (claimed CREATING): created again later, then only read back' },
  { from: 'CREATING',     to: 'EXECUTING',    by: 'attempt',          when: 'create: ready; written before the execute, while the batch runs (startExecuting)' },
  { from: 'CREATING',     to: 'COMPLETED',    by: 'attempt',          when: 'create: paid' },
  { from: 'CREATING',     to: 'IN_PROGRESS',  by: 'attempt',          when: 'create: in-progress, read back later' },
  { from: 'CREATING',     to: 'FAILED',       by: 'attempt',          when: 'create: failed, refused, or absent once retries are spent' },
  { from: 'CREATING',     to: 'EXPIRED',      by: 'attempt',          when: 'create: failed, the payment expired' },
  { from: 'CREATING',     to: 'NEEDS_REVIEW', by: 'attempt',          when: 'create: the paymentId holds another payment' },
  { from: 'EXECUTING',    to: 'READY',        by: 'attempt',          when: 'execute: not sent (unreachable, or withheld: decision 0027), or read back READY while retries last, or in a batch that sends no more' },
  { from: 'EXECUTING',    to: 'EXECUTING',    by: 'attempt',          when: 'execute: unknown, unreachable, or READY once retries are spent: read back later' },
  { from: 'EXECUTING',    to: 'COMPLETED',    by: 'attempt',          when: 'execute: paid' },
  { from: 'EXECUTING',    to: 'IN_PROGRESS',  by: 'attempt',          when: 'execute: in-progress, read back later' },
  { from: 'EXECUTING',    to: 'FAILED',       by: 'attempt',          when: 'execute: failed, or refused' },
  { from: 'EXECUTING',    to: 'EXPIRED',      by: 'attempt',          when: 'execute: failed, the payment expired' },
  { from: 'EXECUTING',    to: 'NEEDS_REVIEW', by: 'attempt',          when: 'execute: the payment created here is not found, or is another' },
  { from: 'IN_PROGRESS',  to: 'IN_PROGRESS',  by: 'attempt',          when: 'read: in progress, READY, unknown or unreachable: read back later' },
  { from: 'IN_PROGRESS',  to: 'COMPLETED',    by: 'attempt',          when: 'read: paid' },
  { from: 'IN_PROGRESS',  to: 'FAILED',       by: 'attempt',          when: 'read: failed, or refused' },
  { from: 'IN_PROGRESS',  to: 'EXPIRED',      by: 'attempt',          when: 'read: failed, the payment expired' },
  { from: 'IN_PROGRESS',  to: 'NEEDS_REVIEW', by: 'attempt',          when: 'read: the payment is not found, or is another' },
  { from: 'PENDING',      to: 'CANCELLED',    by: 'cancel',           when: 'the batch is cancelled: never sent', code: cancelCodes.notSent },
  { from: 'READY',        to: 'CANCELLED',    by: 'cancel',           when: 'the batch is cancelled: created, not executed', code: cancelCodes.afterCreate },
  { from: 'PENDING',      to: 'CANCELLED',    by: 'cancel',           when: 'a worker puts it back to wait in a cancelled batch: never sent', code: cancelCodes.notSent, override: unsentInCancelled },
  { from: 'CREATING',     to: 'CANCELLED',    by: 'cancel',           when: 'a worker puts it back to wait in a cancelled batch: never sent', code: cancelCodes.notSent, override: unsentInCancelled },
  { from: 'EXECUTING',    to: 'CANCELLED',    by: 'cancel',           when: 'a worker puts it back READY in a cancelled batch: created, not executed', code: cancelCodes.afterCreate, override: readyInCancelled },
  { from: 'CREATING',     to: 'CANCELLED',    by: 'cancel',           when: 'about to be executed in a batch no longer running or paused: created, not executed', code: cancelCodes.afterCreate, override: executeInStopped },
  { from: 'READY',        to: 'CANCELLED',    by: 'cancel',           when: 'about to be executed in a batch no longer running or paused: created, not executed', code: cancelCodes.afterCreate, override: executeInStopped },
  { from: 'CREATING',     to: 'READY',        by: 'pause',            when: 'about to be executed in a batch paused meanwhile: created, waits READY for the resume', override: executeInPaused },
  { from: 'READY',        to: 'READY',        by: 'pause',            when: 'about to be executed in a batch paused meanwhile: waits READY for the resume', override: executeInPaused },
  { from: 'FAILED',       to: 'PENDING',      by: 'funds',            when: 'failed for lack of funds, and the batch pauses for funds or runs: a new paymentId' },
  { from: 'EXPIRED',      to: 'PENDING',      by: 'funds',            when: 'failed for lack of funds, and the batch pauses for funds or runs: a new paymentId' },
  { from: 'FAILED',       to: 'PENDING',      by: 'retry-failed',     when: 'paid again under a new paymentId, card data kept, no payee paid since' },
  { from: 'EXPIRED',      to: 'PENDING',      by: 'retry-failed',     when: 'paid again under a new paymentId, card data kept, no payee paid since' },
  { from: 'IN_PROGRESS',  to: 'COMPLETED',    by: 'settle',           when: 'its payment was seen COMPLETED outside the worker' },
  { from: 'IN_PROGRESS',  to: 'FAILED',       by: 'settle',           when: 'its payment was seen FAILED outside the worker' },
  { from: 'IN_PROGRESS',  to: 'EXPIRED',      by: 'settle',           when: 'its payment was seen EXPIRED outside the worker' },
  { from: 'EXECUTING',    to: 'COMPLETED',    by: 'settle',           when: 'its payment was seen COMPLETED (a webhook) and no worker holds it: the execute took effect' },
  { from: 'EXECUTING',    to: 'FAILED',       by: 'settle',           when: 'its payment was seen FAILED and no worker holds it' },
  { from: 'EXECUTING',    to: 'EXPIRED',      by: 'settle',           when: 'its payment was seen EXPIRED and no worker holds it' },
  { from: 'CREATING',     to: 'COMPLETED',    by: 'settle',           when: 'its payment was seen COMPLETED and no worker holds it' },
  { from: 'CREATING',     to: 'FAILED',       by: 'settle',           when: 'its payment was seen FAILED and no worker holds it: the create failed' },
  { from: 'CREATING',     to: 'EXPIRED',      by: 'settle',           when: 'its payment was seen EXPIRED and no worker holds it' },
  { from: 'NEEDS_REVIEW', to: 'COMPLETED',    by: 'review',           when: 'read: paid' },
  { from: 'NEEDS_REVIEW', to: 'FAILED',       by: 'review',           when: 'read: failed, or not created (review.not-created)' },
  { from: 'NEEDS_REVIEW', to: 'EXPIRED',      by: 'review',           when: 'read: expired' },
  { from: 'NEEDS_REVIEW', to: 'IN_PROGRESS',  by: 'review',           when: 'read: in progress; the worker reads it to its end' },
  { from: 'NEEDS_REVIEW', to: 'COMPLETED',    by: 'mark',             when: 'a person marks it paid' },
  { from: 'NEEDS_REVIEW', to: 'FAILED',       by: 'mark',             when: 'a person marks it pay-again: retryFailedItems pays it' },
  { from: 'NEEDS_REVIEW', to: 'CANCELLED',    by: 'mark',             when: 'a person marks it do-not-pay' },
];

/** The states `by` moves a row from, in the enum's order. */
export function rowStatesFrom(...by: RowStep[]): BatchItemStatus[] {
  return inOrder(rowTransitions.filter((t) => by.includes(t.by)).flatMap((t) => (t.from === null ? [] : [t.from])));
}

/** The states `by` moves a row to, in the enum's order. */
export function rowStatesTo(...by: RowStep[]): BatchItemStatus[] {
  return inOrder(rowTransitions.filter((t) => by.includes(t.by)).map((t) => t.to));
}

function inOrder(states: readonly BatchItemStatus[]): BatchItemStatus[] {
  return Object.values(BatchItemStatus).filter((state) => states.includes(state));
}

function only<T>(values: readonly T[], what: string): T {
  if (values.length !== 1) throw new Error(`row-states.ts: ${what} is ${values.length} states, not one`);
  return values[0]!;
}

/**
 * Named states the code refers to, so that no state name is typed twice (as batchStates in
 * states/batch-states.ts): each is a state of the table above, the lists below say which
 * do what.
 */
export const rowStates = {
  pending: 'PENDING',
  creating: 'CREATING',
  ready: 'READY',
  executing: 'EXECUTING',
  inProgress: 'IN_PROGRESS',
  completed: 'COMPLETED',
  failed: 'FAILED',
  expired: 'EXPIRED',
  needsReview: 'NEEDS_REVIEW',
  cancelled: 'CANCELLED',
  invalid: 'INVALID',
  duplicate: 'DUPLICATE',
} as const satisfies Record<string, BatchItemStatus>;

/** The transitions sql/move-items.ts applies in place of a worker's write. */
export const rowOverrides: readonly (RowTransition & { override: RowOverride })[] = rowTransitions.filter(
  (t): t is RowTransition & { override: RowOverride } => t.override !== undefined,
);

/** A state a worker claims a row in: PENDING, CREATING, READY, EXECUTING, IN_PROGRESS. */
export type ActiveItemStatus = 'PENDING' | 'CREATING' | 'READY' | 'EXECUTING' | 'IN_PROGRESS';
/** Rows a worker still has to move (the states its steps leave); every other state is final for the row's current attempt. */
export const activeItemStatuses: readonly BatchItemStatus[] = rowStatesFrom('begin-create', 'start-execute', 'attempt');
/** Rows retryFailedItems pays again (under a new paymentId) while they keep their sealed recipient. */
export const retryableItemStatuses: readonly BatchItemStatus[] = rowStatesFrom('retry-failed');
/** Rows nobody will ever pay (again): no transition leads out of them; they keep only the masked recipient (card-data.ts). */
export const unpayableItemStatuses: readonly BatchItemStatus[] = inOrder(
  Object.values(BatchItemStatus).filter((state) => !rowTransitions.some((t) => t.from === state)),
);
/**
 * Rows whose outcome no read-back settled, left to a review (batch/review/review-service.ts): never
 * paid automatically, but they keep their sealed recipient until they are settled or their
 * retention ends, so that a row proven unpaid can still be paid (review-states.ts).
 */
export const underReviewItemStatuses: readonly BatchItemStatus[] = rowStatesFrom('review');
/** A row waiting to be sent: a new one, or one put back to be paid under a new paymentId. */
export const waitingStatus: BatchItemStatus = only(rowStatesTo('retry-failed'), "retry-failed's result");
/** Rows written right before a create or an execute: a worker holding one may be sending it. */
export const sendingItemStatuses: readonly BatchItemStatus[] = rowStatesTo('begin-create', 'start-execute');
/** Rows whose money has not left yet: what a batch still needs from the balance. */
export const unsentItemStatuses: readonly BatchItemStatus[] = ['PENDING', 'CREATING', 'READY', 'EXECUTING'];
/** Codes of a payment that failed for lack of funds (status errorCode, or the create's Error code): no money moved. */
export const unfundedCodes: readonly string[] = ['INSUFFICIENT_FUNDS', 'payout.insufficient-funds'];
/** A row of alias `i` that failed for lack of funds: no money moved. */
export function unfundedFailedSql(i: string): string {
  return `(${i}.status IN (${sqlList(rowStatesFrom('funds'))}) AND ${i}."errorCode" IN (${unfundedCodes.map((c) => `'${c}'`).join(', ')}))`;
}
/** Of those, one the `funds` step can pay again (funds/sql/requeue-unfunded.ts): it keeps its sealed recipient. */
export function unfundedRowSql(i: string): string {
  return `(${unfundedFailedSql(i)} AND (${i}.fields -> '$sealed') IS NOT NULL)`;
}
/**
 * Batches that put such a row back to be paid under a new paymentId: a running one (at once,
 * with the funds pause) and a paused one (at the resume, whoever paused it). Its failure is
 * not its outcome while its batch is in one of these (docs/decisions/0026-final-outcome-events.md).
 */
export const unfundedWaitBatchStates: readonly BatchStatus[] = [...payingStates, batchStates.paused];
/** Where a row about to be executed stops when its batch was paused meanwhile: created, not executed. */
export const pausedBeforeExecute: BatchItemStatus = only(rowStatesTo('pause'), "pause's result");
/** Rows of a paused batch that are still read back: they only learn what happened, nothing is sent. */
export const readWhilePausedStatuses: readonly BatchItemStatus[] = ['IN_PROGRESS'];
/** Rows no worker sends: they failed validation (INVALID), or are held (DUPLICATE: repeat a payment) and were not included at approval. */
export const notSentItemStatuses: readonly BatchItemStatus[] = rowStatesTo('import').filter((state) => state !== waitingStatus);
/**
 * A row in one of these states, in an approved batch, has paid its payee or may still pay
 * them without anyone uploading it again: another row with the same payee, amount and
 * reference is held as a repeat of it (batch/import/held-rows.ts). FAILED, EXPIRED and CANCELLED
 * rows moved no money; retryFailedItems checks the same rule before paying them again.
 */
export const payingItemStatuses: readonly BatchItemStatus[] = [
  'PENDING',
  'CREATING',
  'READY',
  'EXECUTING',
  'IN_PROGRESS',
  'COMPLETED',
  'NEEDS_REVIEW',
];
/** Final states that count as "did not complete" for COMPLETED_WITH_FAILURES. */
export const failedItemStatuses: readonly BatchItemStatus[] = ['FAILED', 'EXPIRED', 'NEEDS_REVIEW', 'CANCELLED'];

/** The guards of batch-states.ts over a batch's rows (alias `b` the batch), each excluding the others. */
export function rowGuardsSql(batch: string): Record<BatchGuard, string> {
  const any = (states: readonly BatchItemStatus[]) =>
    `EXISTS (SELECT 1 FROM "BatchItem" AS g WHERE g."batchId" = ${batch}.id AND g.status IN (${sqlList(states)}))`;
  const inFlight = any(activeItemStatuses);
  const failed = any(failedItemStatuses);
  return {
    'rows-in-flight': inFlight,
    'a-row-failed': `NOT ${inFlight} AND ${failed}`,
    'every-row-completed': `NOT ${inFlight} AND NOT ${failed}`,
  };
}

export const cancelledStatus: BatchItemStatus = only(rowStatesTo('cancel'), "cancel's result");
/** Rows a cancel ends where they stand: PENDING was never sent, READY was created and not executed. */
export const cancelledAtOnce = {
  notSent: cancelledBy(cancelCodes.notSent) as 'PENDING',
  afterCreate: cancelledBy(cancelCodes.afterCreate) as 'READY',
} as const satisfies Record<string, BatchItemStatus>;

function cancelledBy(code: string): BatchItemStatus {
  const from = rowTransitions.filter((t) => t.by === 'cancel' && t.override === undefined && t.code === code).map((t) => t.from);
  return only(
    from.filter((state): state is BatchItemStatus => state !== null),
    `the cancel's ${code} state`,
  );
}

/** The row's message for a payment created and not executed, in JavaScript (toISOString) and SQL alike. */
export function cancelledAfterCreateMessage(expiresAt: Date | null): string {
  return `created upstream, not executed, expires at ${expiresAt === null ? 'an unknown time' : expiresAt.toISOString()}`;
}
/** The same message from a timestamptz SQL expression. */
export function cancelledAfterCreateMessageSql(expiresAt: string): string {
  return `'created upstream, not executed, expires at ' || COALESCE(to_char((${expiresAt}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'an unknown time')`;
}

// What an attempt's outcome makes of a row: row-outcomes.ts (changeAfter and its tables).
export * from './row-outcomes.ts';
