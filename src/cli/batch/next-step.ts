import { approvableStates, batchStates, cancellableStates, retryableStates, rowStates } from '../../batch/cli-face.ts';
import type { BatchStatus } from '../../db/generated/enums.ts';
import { CliError, exitCodes } from '../cli-error.ts';
import type { BatchView } from './batch-view.ts';

/**
 * What a person can still do with a batch in its state, as commands that would work: a
 * refusal names only these, never a command that would refuse in turn (issue 38: `discard`
 * of a finished batch sent people to `cancel`, which refused as well). Read from the
 * lifecycle table (batch-states.ts), so a state the table closes is never offered.
 */
export function whatWorks(batch: Pick<BatchView, 'id' | 'status' | 'counts'>): string {
  const id = batch.id;
  const status = batch.status as BatchStatus;
  const has = (row: string) => batch.counts.some((c) => c.status === row && c.count > 0);
  if (status === batchStates.paused) return `resume it: payout batch resume ${id}; or stop it for good: payout batch cancel ${id}`;
  if (status === batchStates.running) return `follow it: payout batch status ${id}; pause it: payout batch pause ${id}`;
  if (status === batchStates.scheduled)
    return `move its time: payout batch reschedule ${id} --pay-at …; or stop it: payout batch cancel ${id}`;
  if (status === batchStates.importing) return `its file is still being read: payout batch status ${id}`;
  const steps: string[] = [];
  if (has(rowStates.needsReview)) steps.push(`settle the rows whose outcome is unknown: payout batch review ${id}`);
  if (retryableStates.includes(status) && (has(rowStates.failed) || has(rowStates.expired)))
    steps.push(`pay its failed rows again: payout batch retry ${id}`);
  steps.push(`its results: payout batch export ${id} -o results.csv`);
  return steps.join('; ');
}

/** A batch that has ended (paid, paid with failures, cancelled): nothing of it waits to be approved, discarded or cancelled. */
function ended(status: string): boolean {
  return !cancellableStates.includes(status as BatchStatus) && !approvableStates.includes(status as BatchStatus);
}

/**
 * `approve` refused before anything is asked: a batch no approval can start (already approved,
 * paid, cancelled) is said as such with what works instead, before the `[y/N]` question or
 * the need for `--yes` (issue 38: a completed batch asked for --yes, then refused).
 */
export function refuseApproveEarly(batch: Pick<BatchView, 'id' | 'status' | 'counts'>, validOnly: boolean): void {
  const status = batch.status as BatchStatus;
  if (approvableStates.includes(status) && (status !== batchStates.rejected || validOnly)) return;
  if (status === batchStates.rejected) {
    throw new CliError(
      `batch ${batch.id} is REJECTED (it has row errors): only its valid rows can be paid: payout batch approve ${batch.id} --valid-only; or discard it: payout batch discard ${batch.id}`,
      exitCodes.notPayable,
      'batch.not-approvable',
    );
  }
  const state = ended(status) ? `${status}: it has ended` : `${status}: it was approved already`;
  throw new CliError(
    `batch ${batch.id} is ${state}, nothing is left to approve; ${whatWorks(batch)}`,
    exitCodes.notPayable,
    'batch.not-approvable',
  );
}

/**
 * `discard` and `cancel` refused before the mutation when the batch's state cannot take them,
 * naming what works: `cancel` for an approved batch still paying or waiting, nothing of the
 * kind for one that has ended.
 */
export function refuseCancelEarly(
  batch: Pick<BatchView, 'id' | 'status' | 'counts' | 'approvedAt'>,
  verb: 'cancel' | 'discard',
  approvedWhen: string,
): void {
  const status = batch.status as BatchStatus;
  const cancellable = cancellableStates.includes(status);
  if (!cancellable) {
    throw new CliError(
      `batch ${batch.id} is ${status}: it has ended, nothing of it is left to ${verb}; ${whatWorks(batch)}`,
      exitCodes.notPayable,
      verb === 'discard' ? 'batch.not-discardable' : 'batch.not-cancellable',
    );
  }
  if (verb === 'discard' && batch.approvedAt !== null) {
    throw new CliError(
      `batch ${batch.id} was approved ${approvedWhen}: cancel it instead (payments already sent finish): payout batch cancel ${batch.id}`,
      exitCodes.notPayable,
      'batch.not-discardable',
    );
  }
}
