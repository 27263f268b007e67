import type { BatchPauseReason, BatchStatus } from '../../db/generated/enums.ts';
import { sqlList, sqlName } from '../../db/sql-list.ts';

/**
 * Who moves a batch from one state to another, and where the code that does it lives.
 * A new step or state is added here first; the lists below, the SQL built from them and
 * test/batch/lifecycle/states.test.ts follow.
 */
export type BatchStep =
  /** batch-importer.ts: claims the upload, reads every row, ends the import. */
  | 'import'
  /** sql/reject-stale-imports.ts, run by the worker's idle sweep: an import whose process died. */
  | 'stale-import'
  /** batch-service.ts approve (approveBatch, `payout batch approve|run`); with a payAt ahead it schedules (batch-schedule.ts). */
  | 'approve'
  /** sql/release-due-batches.ts, run by every worker's idle sweep: a SCHEDULED batch whose payAt the database clock has reached. */
  | 'release'
  /** batch-schedule.ts reschedule (rescheduleBatch, `payout batch reschedule`): a new payAt, audited. */
  | 'reschedule'
  /** batch-service.ts cancel (cancelBatch, `payout batch cancel`). */
  | 'cancel'
  /** sql/finish-batches.ts, run by the worker when rows come to rest and by its idle sweep. */
  | 'finish'
  /** batch-service.ts retryFailed (retryFailedItems). */
  | 'retry-failed'
  /** batch-service.ts pause (pauseBatch, `payout batch pause`): a person. */
  | 'pause'
  /** batch-service.ts resume (resumeBatch, `payout batch resume`): a person. */
  | 'resume'
  /** funds/sql/pause-for-funds.ts and resume-funded.ts, run by the worker: INSUFFICIENT_FUNDS pauses; a balance that covers the rest resumes. */
  | 'funds'
  /** review-service.ts (reviewBatchItems, markBatchItem): NEEDS_REVIEW rows settled, sql/restate-reviewed-batch.ts. */
  | 'review';

/**
 * What a step's SQL asks of the batch's rows to pick among its moves (finish, review): each
 * SQL file says it over its own tables (batchMoveSql), so the table chooses the target.
 * The three exclude each other: rows in flight; none, but one that did not complete
 * (failedItemStatuses); neither.
 */
export type BatchGuard = 'rows-in-flight' | 'a-row-failed' | 'every-row-completed';

export interface BatchTransition {
  /** null: the batch is created in `to`. */
  from: BatchStatus | null;
  to: BatchStatus;
  by: BatchStep;
  /** For the steps whose SQL picks the target: what the rows must say (none: the state alone). */
  guard?: BatchGuard;
  when: string;
}

/**
 * The batch lifecycle. A row per allowed move; anything else is refused (batch-service.ts
 * throws BatchStateError) or changes nothing (the SQL steps select only their `from` states).
 */
// prettier-ignore
export const batchTransitions: readonly BatchTransition[] = [
  { from: null,                      to: 'VALIDATING',              by: 'import',       when: 'the upload is claimed; its rows are read and checked' },
  { from: null,                      to: 'REJECTED',                by: 'import',       when: 'refused before any row is read: unreadable, too big, or a file imported before' },
  { from: 'VALIDATING',              to: 'VALIDATED',               by: 'import',       when: 'every row read, no error' },
  { from: 'VALIDATING',              to: 'REJECTED',                by: 'import',       when: 'an error in the file or a row, or the import itself failed' },
  { from: 'VALIDATING',              to: 'REJECTED',                by: 'stale-import', when: 'no heartbeat for IMPORT_STALE_MS: the importing process died' },
  { from: 'VALIDATED',               to: 'RUNNING',                 by: 'approve',      when: 'approved by someone other than the uploader (unless single-user)' },
  { from: 'REJECTED',                to: 'RUNNING',                 by: 'approve',      when: 'approved with validRowsOnly: only row errors, and at least one valid row' },
  { from: 'VALIDATED',               to: 'SCHEDULED',               by: 'approve',      when: 'approved as above, with a payAt ahead: it waits, no row is claimed' },
  { from: 'REJECTED',                to: 'SCHEDULED',               by: 'approve',      when: 'approved with validRowsOnly and a payAt ahead' },
  { from: 'SCHEDULED',               to: 'RUNNING',                 by: 'release',      when: 'the database clock reached payAt: one statement, so one worker releases it, once' },
  { from: 'SCHEDULED',               to: 'SCHEDULED',               by: 'reschedule',   when: 'a person who may approve sets another payAt ahead (audited)' },
  { from: 'SCHEDULED',               to: 'CANCELLED',               by: 'cancel',       when: 'cancelled while waiting: nothing was sent, no row is paid' },
  { from: 'VALIDATING',              to: 'CANCELLED',               by: 'cancel',       when: 'discarded while its file is read: the import stops, no row is paid' },
  { from: 'VALIDATED',               to: 'CANCELLED',               by: 'cancel',       when: 'discarded before approval: nothing was paid, the file may be uploaded again' },
  { from: 'REJECTED',                to: 'CANCELLED',               by: 'cancel',       when: 'discarded before approval' },
  { from: 'RUNNING',                 to: 'CANCELLED',               by: 'cancel',       when: 'no new payment is sent; those in flight end and are tracked' },
  { from: 'RUNNING',                 to: 'COMPLETED',               by: 'finish',       guard: 'every-row-completed', when: 'no row left to move, and every row completed' },
  { from: 'RUNNING',                 to: 'COMPLETED_WITH_FAILURES', by: 'finish',       guard: 'a-row-failed',        when: 'no row left to move, and some row did not complete (failedItemStatuses)' },
  { from: 'CANCELLED',               to: 'CANCELLED',               by: 'finish',       when: 'the rows in flight at the cancel have ended: finishedAt is set' },
  { from: 'COMPLETED_WITH_FAILURES', to: 'RUNNING',                 by: 'retry-failed', when: 'FAILED and EXPIRED rows are paid again under new paymentIds' },
  { from: 'RUNNING',                 to: 'PAUSED',                  by: 'pause',        when: 'a person pauses it: nothing new is sent; calls in flight end their step' },
  { from: 'RUNNING',                 to: 'PAUSED',                  by: 'funds',        when: 'the partner answered INSUFFICIENT_FUNDS: those rows wait under new paymentIds' },
  { from: 'PAUSED',                  to: 'RUNNING',                 by: 'resume',       when: 'a person resumes it (also one paused for funds)' },
  { from: 'PAUSED',                  to: 'RUNNING',                 by: 'funds',        when: 'paused for funds, and the balance now covers the rows left and their commission' },
  { from: 'PAUSED',                  to: 'CANCELLED',               by: 'cancel',       when: 'no new payment is sent; those in flight end and are tracked' },
  { from: 'PAUSED',                  to: 'COMPLETED',               by: 'finish',       guard: 'every-row-completed', when: 'paused after its last row was sent, and every row completed' },
  { from: 'PAUSED',                  to: 'COMPLETED_WITH_FAILURES', by: 'finish',       guard: 'a-row-failed',        when: 'paused after its last row was sent, and some row did not complete' },
  { from: 'COMPLETED_WITH_FAILURES', to: 'COMPLETED',               by: 'review',       guard: 'every-row-completed', when: 'the last NEEDS_REVIEW row settled as paid: every row completed' },
  { from: 'COMPLETED_WITH_FAILURES', to: 'RUNNING',                 by: 'review',       guard: 'rows-in-flight',      when: 'a NEEDS_REVIEW row read IN_PROGRESS upstream: the worker reads it to its end' },
];

export function canMove(from: BatchStatus | null, to: BatchStatus, by?: BatchStep): boolean {
  return batchTransitions.some((t) => t.from === from && t.to === to && (by === undefined || t.by === by));
}

/**
 * The new status of a batch (alias `b`) moved by `by`, as SQL: the table's moves of that step
 * as CASE arms, in table order, one per target and guard (`WHEN b.status IN (from…) AND guard
 * THEN to`); a batch no arm takes keeps its status. `guards` says each guard over the rows.
 */
export function batchMoveSql(by: BatchStep, alias: string, guards: Readonly<Record<BatchGuard, string>>): string {
  const arms = new Map<string, { from: BatchStatus[]; to: BatchStatus; guard: BatchGuard | undefined }>();
  for (const t of batchTransitions) {
    if (t.by !== by || t.from === null) continue;
    const key = `${t.to}:${t.guard ?? ''}`;
    const arm = arms.get(key) ?? { from: [], to: t.to, guard: t.guard };
    arm.from.push(t.from);
    arms.set(key, arm);
  }
  if (arms.size === 0) throw new Error(`batch-states.ts: no move by ${by}`);
  const when = [...arms.values()].map(({ from, to, guard }) => {
    const states = `${alias}.status IN (${sqlList(from)})`;
    return `WHEN ${states}${guard === undefined ? '' : ` AND ${guards[guard]}`} THEN ${sqlName(to)}::"BatchStatus"`;
  });
  return `CASE ${when.join('\n    ')} ELSE ${alias}.status END`;
}

/** The states `by` moves a batch from (to `to`, when given). */
export function statesFrom(by: BatchStep, to?: BatchStatus): BatchStatus[] {
  const from = batchTransitions.filter((t) => t.by === by && (to === undefined || t.to === to)).map((t) => t.from);
  return [...new Set(from.filter((state): state is BatchStatus => state !== null))];
}

/** The states `by` moves a batch to. */
export function statesTo(by: BatchStep): BatchStatus[] {
  return [...new Set(batchTransitions.filter((t) => t.by === by).map((t) => t.to))];
}

/** Named states the code and its SQL refer to, so that no state name is typed twice. */
export const batchStates = {
  /** An import in progress: the only state its heartbeat, its end and the sweep act on. */
  importing: 'VALIDATING',
  /** An import that read every row and found no error. */
  validated: 'VALIDATED',
  /** Refused at import; approvable with validRowsOnly only. */
  rejected: 'REJECTED',
  /** Approved: the worker sends its rows' payments. */
  running: 'RUNNING',
  completed: 'COMPLETED',
  completedWithFailures: 'COMPLETED_WITH_FAILURES',
  cancelled: 'CANCELLED',
  /** Approved and waiting: nothing new is sent until it is resumed (pauseReason says why). */
  paused: 'PAUSED',
  /** Approved to pay at payAt: nothing is claimed or sent until it is released. */
  scheduled: 'SCHEDULED',
} as const satisfies Record<string, BatchStatus>;

/** Why a PAUSED batch waits, and so what resumes it: a person, or a balance that covers the rest. */
export const pauseReasons = { person: 'PERSON', funds: 'FUNDS' } as const satisfies Record<string, BatchPauseReason>;

/** States a cancel ends. */
export const cancellableStates: readonly BatchStatus[] = statesFrom('cancel');
/** States an approval starts. */
export const approvableStates: readonly BatchStatus[] = statesFrom('approve');
/** States a scheduled batch is released from (to RUNNING), and rescheduled in. */
export const releasableStates: readonly BatchStatus[] = statesFrom('release');
export const reschedulableStates: readonly BatchStatus[] = statesFrom('reschedule');
/** States whose failed rows retryFailedItems pays again. */
export const retryableStates: readonly BatchStatus[] = statesFrom('retry-failed');
/** States the finishing step ends (or, for a cancelled batch, stamps finishedAt). */
export const finishableStates: readonly BatchStatus[] = statesFrom('finish');
/** A run that ended and can never pay again (no retry leads out of it): its rows keep no card data. */
export const closedStates: readonly BatchStatus[] = statesTo('finish').filter((state) => !retryableStates.includes(state));
/** Rows of these batches are sent new payments. */
export const payingStates: readonly BatchStatus[] = [batchStates.running];
/**
 * Rows of these batches are claimed by workers: a cancelled batch's rows being created or
 * executed when it was cancelled are still settled (and end CANCELLED where they may).
 */
export const workedStates: readonly BatchStatus[] = [...payingStates, batchStates.cancelled];
/** Rows of these batches are only read back (IN_PROGRESS): nothing is created or executed. */
export const readOnlyStates: readonly BatchStatus[] = [batchStates.paused];
/** States a person may pause, and resume. */
export const pausableStates: readonly BatchStatus[] = statesFrom('pause');
export const resumableStates: readonly BatchStatus[] = statesFrom('resume');
/** Batches of these states count as a file imported: a second upload of the same file is refused. */
export const importedStates: readonly BatchStatus[] = [
  batchStates.validated,
  ...statesTo('approve'),
  ...statesTo('pause'),
  ...statesTo('finish'),
].filter((state, index, all) => all.indexOf(state) === index);
/**
 * Batches a person may take off the list (dismissBatch): those that paid nothing and never
 * will, a rejected upload or a discarded one (cancelled before approval, checked apart).
 */
export const dismissableStates: readonly BatchStatus[] = [batchStates.rejected, batchStates.cancelled];
/**
 * Nothing moves a batch on from these by itself: only a person (retryFailedItems, an
 * approval with validRowsOnly). A CANCELLED batch rests once its finishedAt is set.
 */
export const restingStates: readonly BatchStatus[] = [batchStates.completed, batchStates.completedWithFailures, batchStates.rejected];
