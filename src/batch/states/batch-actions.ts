import type { BatchStatus } from '../../db/generated/enums.ts';
import {
  approvableStates,
  batchStates,
  batchTransitions,
  cancellableStates,
  dismissableStates,
  pausableStates,
  reschedulableStates,
  resumableStates,
  retryableStates,
  statesTo,
} from './batch-states.ts';

/**
 * What a person can do to a batch in its state, read from the table of batch-states.ts: the
 * gateway's answer (GraphQL Batch.actions) that the page and the CLI ask instead of testing
 * states of their own. Who may do it (roles, maker-checker) is the caller's part, checked by
 * every mutation.
 */
export type BatchAction =
  /** approve: a batch that passed validation. */
  | 'approve'
  /** approve with validRowsOnly: a batch refused for row errors only, with a valid row (approvalRefusal). */
  | 'approve-valid-rows'
  | 'reschedule'
  | 'pause'
  | 'resume'
  /** cancel a batch that was approved: what is in flight ends, nothing new is sent. */
  | 'cancel'
  /** cancel a batch never approved (one being read, or one an approval could start): nothing was sent. */
  | 'discard'
  /** take a batch that paid nothing and never will off the list. */
  | 'dismiss'
  /** retryFailedItems: its FAILED and EXPIRED rows paid again. */
  | 'retry';

/** What the actions are read from: the batch, its file's own errors, and how many of its rows retryFailedItems would pay again. */
export interface ActionFacts extends ApprovalFacts {
  approvedAt: Date | null;
  dismissedAt: Date | null;
  /** Rows retryFailedItems would pay again now (FAILED or EXPIRED, their card data still held). */
  retryableRows: number;
}

/** What the approve-valid-rows rule reads. */
export interface ApprovalFacts {
  status: BatchStatus;
  validCount: number;
  /** Errors of the file itself (no line, or the header's): no row can be skipped past them. */
  fileErrors: number;
}

/**
 * How many of an import's problems are errors of the file itself (no line, or line 1, the
 * header), which no approval skips: the rule countFileErrors (approve-batch.ts) reads from
 * the stored problems, for the CLI that holds the report before an upload.
 */
export function fileErrorsOf(problems: readonly { line: number | null; severity: string }[]): number {
  return problems.filter((p) => p.severity === 'error' && (p.line === null || p.line === 1)).length;
}

/** Whether an approval from `status` takes only the valid rows (validRowsOnly): the table's approve moves from a refused import. */
export function approvalNeedsValidRows(status: BatchStatus): boolean {
  return status === batchStates.rejected && batchTransitions.some((t) => t.by === 'approve' && t.from === status);
}

/**
 * The approve-valid-rows rule: why an approval (with or without validRowsOnly) is refused by
 * the batch's state, or null when its state takes it. A batch refused at import is approved
 * only with validRowsOnly, only when its file itself has no error, and only when a row is valid.
 */
export function approvalRefusal(
  batch: ApprovalFacts,
  validRowsOnly: boolean,
): 'batch.rejected' | 'batch.file-errors' | 'batch.no-valid-rows' | 'batch.not-approvable' | null {
  if (approvalNeedsValidRows(batch.status)) {
    if (!validRowsOnly) return 'batch.rejected';
    if (batch.fileErrors > 0) return 'batch.file-errors';
    return batch.validCount === 0 ? 'batch.no-valid-rows' : null;
  }
  return approvableStates.includes(batch.status) ? null : 'batch.not-approvable';
}

/** States a batch is in once approved (an approval or a pause leads there): a cancel there ends a run, not an upload. */
const approvedStates: readonly BatchStatus[] = [...statesTo('approve'), ...statesTo('pause')];

/** The actions a batch's state allows now, in the order the page offers them. */
export function batchActions(batch: ActionFacts): BatchAction[] {
  const { status } = batch;
  const approvable = approvalRefusal(batch, false) === null;
  const approvableValid = !approvable && approvalRefusal(batch, true) === null;
  const actions: BatchAction[] = [];
  if (approvable) actions.push('approve');
  if (approvableValid) actions.push('approve-valid-rows');
  // Discard: a cancel before any approval, while the file is read or once an approval could
  // start it. A refused upload no approval can take has nothing to discard: it is only taken
  // off the list (dismiss).
  const beforeApproval = !approvedStates.includes(status) && cancellableStates.includes(status);
  if (beforeApproval && (!approvalNeedsValidRows(status) || approvableValid)) actions.push('discard');
  if (pausableStates.includes(status)) actions.push('pause');
  if (resumableStates.includes(status)) actions.push('resume');
  if (reschedulableStates.includes(status)) actions.push('reschedule');
  if (approvedStates.includes(status) && cancellableStates.includes(status)) actions.push('cancel');
  if (retryableStates.includes(status) && batch.retryableRows > 0) actions.push('retry');
  if (dismissable(batch)) actions.push('dismiss');
  return actions;
}

/** A batch that paid nothing and never will (a rejected upload, or one discarded before approval), not yet dismissed. */
export function dismissable(batch: Pick<ActionFacts, 'status' | 'approvedAt' | 'dismissedAt'>): boolean {
  return dismissableStates.includes(batch.status) && batch.approvedAt === null && batch.dismissedAt === null;
}
