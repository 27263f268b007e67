import { activeItemStatuses, batchStates, failedItemStatuses, notSentItemStatuses, pauseReasons } from '../../batch/cli-face.ts';
import { setTimeout as delay } from 'node:timers/promises';
import { BatchItemStatus } from '../../db/generated/enums.ts';
import { exitCodes } from '../cli-error.ts';
import type { CliContext } from '../context.ts';
import type { Connection } from '../gateway/connect.ts';
import { progress } from '../progress.ts';
import { statusDoc, statusText, type BatchView } from './batch-view.ts';
import { readBatch } from './gateway-commands.ts';
import { localAmount } from '../../money/money-text.ts';

/** How often the bar reads the batch again: a loopback GraphQL read, cheap beside the payments. */
const READ_EVERY_MS = 500;

/** Still being paid: RUNNING, or paused for funds (it resumes by itself after a top-up). Paused by a person: the end of following. */
export function goesOn(batch: { status: string; waiting: { reason: string } | null }): boolean {
  return batch.status === batchStates.running || (batch.status === batchStates.paused && batch.waiting?.reason === pauseReasons.funds);
}

/** Rows the batch pays this run: the valid ones (all of them once it runs), less the held ones unless included. */
function rowsToPay(batch: BatchView): number {
  return (
    (batch.validRowsOnly || batch.status === batchStates.running ? batch.validCount : batch.rowCount) -
    (batch.includeHeld ? 0 : batch.heldCount)
  );
}

const countOf = (batch: BatchView, where: (status: BatchItemStatus) => boolean) =>
  batch.counts.filter((c) => where(c.status as BatchItemStatus)).reduce((sum, c) => sum + c.count, 0);

/**
 * Follows a batch until it stops going on, with a bar (or JSON lines with --json). In a
 * gateway this process started (no gateway was running), this process's worker pays the one
 * batch, as `payout batch run` always did, and Ctrl-C stops it after the payments in flight;
 * against a running gateway its workers pay, and Ctrl-C only stops following.
 */
export async function payAndFollow(
  connection: Connection,
  batchId: string,
  context: CliContext,
  doc: Record<string, unknown>,
): Promise<number> {
  const { client, local } = connection;
  const bar = progress<{
    paid: string;
    paidValue: string;
    failed: number;
    rate: number;
    note: string;
    left: string;
    waitingFor: string | null;
  }>(
    context,
    'batch',
    '{bar} {percentage}% | {value}/{total} rows | paid {paid} | failed {failed} | {rate} rows/s | {left}{note}',
    ({ paidValue, failed, rate, waitingFor }) => ({ batchId, paid: paidValue, failed, rate, waitingFor, stopping: interrupted }),
  );
  let interrupted = false;
  let note = '';
  const onSignal = () => {
    if (interrupted) process.exit(exitCodes.interrupted);
    interrupted = true;
    note =
      local === undefined
        ? ' | stopped following (the gateway goes on paying)'
        : ' | stopping: no new payments, waiting for those in flight (Ctrl-C again to quit)';
    if (local !== undefined) void local.worker.stop();
  };
  process.on('SIGINT', onSignal);
  let batch = await readBatch(client, batchId);
  const show = (current: BatchView, started: boolean) => {
    const done = countOf(current, (status) => !activeItemStatuses.includes(status) && !notSentItemStatuses.includes(status));
    const failed = countOf(current, (status) => failedItemStatuses.includes(status));
    const waitingFor = current.waiting?.waitingFor ?? null;
    // Never an ETA computed from no progress ("NFs"): what it waits for, or that it is still measuring.
    const left =
      waitingFor !== null
        ? `waiting: ${waitingFor}`
        : current.secondsLeft === null
          ? 'time left: measuring'
          : `about ${Math.ceil(current.secondsLeft)} s left`;
    const paidValue = current.counts.find((c) => c.status === BatchItemStatus.COMPLETED)?.amount ?? '0.00';
    const payload = {
      paid: localAmount(paidValue, current.totalAmount.currency),
      paidValue,
      failed,
      rate: Math.round((current.throughput ?? 0) * 10) / 10,
      note: interrupted ? note : '',
      left,
      waitingFor,
    };
    if (started) bar.update(done, payload);
    else bar.start(rowsToPay(current), payload);
  };
  show(batch, false);
  try {
    const paying =
      local === undefined
        ? undefined
        : // Asked by the worker at every turn of its loop: one row read, not the API's counts.
          local.worker.drain(async () => {
            const row = await local.services.batches.get(batchId);
            return interrupted || !goesOn({ status: row.status, waiting: row.pauseReason === null ? null : { reason: row.pauseReason } });
          }, batchId);
    while (!interrupted || paying !== undefined) {
      const ended =
        paying === undefined
          ? delay(READ_EVERY_MS).then(() => false)
          : Promise.race([paying.then(() => true), delay(READ_EVERY_MS).then(() => false)]);
      const stopped = await ended;
      batch = await readBatch(client, batchId);
      show(batch, true);
      if (stopped || (paying === undefined && (interrupted || !goesOn(batch)))) break;
    }
    if (local !== undefined) await local.worker.stop();
  } finally {
    process.off('SIGINT', onSignal);
  }
  batch = await readBatch(client, batchId);
  show(batch, true);
  bar.stop();
  context.out(statusText(batch));
  if (interrupted) {
    context.out(
      local === undefined
        ? `Stopped following. The gateway goes on paying batch ${batchId}: payout batch status ${batchId}`
        : `Interrupted. The rest of batch ${batchId} is paid by: payout batch resume ${batchId} (or a running gateway or worker).`,
    );
  }
  // Someone else ended what this command was following: not the rows' failure (exit 4), nor
  // this command's (3), and a script must not take a paused payroll for a finished one.
  const stopped = interrupted ? null : await stoppedByPerson(client, batch);
  if (stopped !== null) {
    context.out(
      stopped.action === 'paused'
        ? `Stopped following: batch ${batchId} was paused by ${stopped.by ?? 'a person'}. It goes on with: payout batch resume ${batchId}`
        : `Stopped following: batch ${batchId} was cancelled${stopped.by === null ? '' : ` by ${stopped.by}`}: nothing more of it is sent; payments that were on their way end and are tracked.`,
    );
  }
  await context.result({ ...doc, interrupted, stopped, batch: statusDoc(batch) });
  if (interrupted) return exitCodes.interrupted;
  if (stopped !== null) return exitCodes.stoppedByPerson;
  return batch.status === batchStates.completed ? exitCodes.ok : exitCodes.failures;
}

/**
 * A batch a person paused (waiting.by) or cancelled, with who did it. Who cancelled is in the
 * audit trail only, which admin keys read: for any other key `by` is null and the message
 * says no name.
 */
async function stoppedByPerson(
  client: Connection['client'],
  batch: BatchView,
): Promise<{ action: 'paused' | 'cancelled'; by: string | null } | null> {
  if (batch.status === batchStates.paused && batch.waiting?.reason === pauseReasons.person)
    return { action: 'paused', by: batch.waiting.by };
  if (batch.status !== batchStates.cancelled) return null;
  try {
    const { auditEvents } = await client.graphql<{ auditEvents: { edges: Array<{ node: { actor: string } }> } }>(
      'query CliWhoCancelled($id: ID!) { auditEvents(batchId: $id, action: BATCH_CANCEL, first: 1) { edges { node { actor } } } }',
      { id: batch.id },
    );
    return { action: 'cancelled', by: auditEvents.edges[0]?.node.actor ?? null };
  } catch {
    return { action: 'cancelled', by: null };
  }
}
