import type { Runtime } from '../app/runtime.ts';
import { batchStates, waitingNow } from '../batch/index.ts';
import type { Batch } from '../db/generated/client.ts';
import { formerHeldNames, table } from './output.ts';

/** A batch as the batch commands show it: a summary line, the status table, and the --json document. */
export function summary(batch: Batch): string {
  return (
    `Batch ${batch.id} (${batch.name}): ${batch.status}. ${batch.rowCount} rows, ${batch.validCount} valid, ` +
    `${batch.invalidCount} invalid, ${batch.warningCount} warnings; valid rows total ${batch.totalAmount.toFixed(2)} ${batch.currency}.` +
    (batch.heldCount > 0 ? ` ${batch.heldCount} rows (${batch.heldAmount.toFixed(2)} ${batch.currency}) repeat a payment and are held back.` : '') +
    (batch.forced ? ' Imported with --force: the same file was imported before.' : '')
  );
}

export async function statusText(runtime: Runtime, batch: Batch): Promise<string> {
  const progress = await runtime.services.batches.progress(batch);
  const rows = progress.counts.map((c) => [c.status, String(c.count), c.amount]);
  const timing = [
    batch.startedAt === null ? null : `started ${batch.startedAt.toISOString()}`,
    batch.finishedAt === null ? null : `finished ${batch.finishedAt.toISOString()}`,
    progress.throughput === null ? null : `${progress.throughput.toFixed(1)} rows/s`,
    progress.secondsLeft === null || batch.finishedAt !== null || batch.status === batchStates.paused ? null : `about ${Math.ceil(progress.secondsLeft)} s left`,
  ].filter((part) => part !== null);
  const wait = await waitingNow(runtime.services.prisma, batch);
  const waiting = wait === null ? '' : `\nwaiting${wait.since === null ? '' : ` since ${wait.since.toISOString()}`}: ${wait.waitingFor}`;
  return `${summary(batch)}\n${table(['STATUS', 'ROWS', 'AMOUNT'], rows)}${timing.length > 0 ? `\n${timing.join(', ')}` : ''}${waiting}`;
}

/** A batch as --json gives it: the row, its counts per status, timing and what it waits for. */
export async function statusDoc(runtime: Runtime, batch: Batch): Promise<Record<string, unknown>> {
  const progress = await runtime.services.batches.progress(batch);
  const wait = await waitingNow(runtime.services.prisma, batch);
  return {
    id: batch.id,
    name: batch.name,
    fileName: batch.fileName,
    status: batch.status,
    currency: batch.currency,
    rowCount: batch.rowCount,
    validCount: batch.validCount,
    invalidCount: batch.invalidCount,
    warningCount: batch.warningCount,
    totalAmount: batch.totalAmount.toFixed(2),
    heldCount: batch.heldCount,
    heldAmount: batch.heldAmount.toFixed(2),
    forced: batch.forced,
    validRowsOnly: batch.validRowsOnly,
    includeHeld: batch.includeHeld,
    ...formerHeldNames({ count: batch.heldCount, amount: batch.heldAmount.toFixed(2), include: batch.includeHeld }),
    uploadedBy: batch.uploadedBy,
    approvedBy: batch.approvedBy,
    createdAt: batch.createdAt.toISOString(),
    approvedAt: batch.approvedAt?.toISOString() ?? null,
    startedAt: batch.startedAt?.toISOString() ?? null,
    finishedAt: batch.finishedAt?.toISOString() ?? null,
    counts: progress.counts,
    throughput: progress.throughput,
    secondsLeft: batch.finishedAt !== null || batch.status === batchStates.paused ? null : progress.secondsLeft,
    waiting: wait === null ? null : { reason: wait.reason, since: wait.since?.toISOString() ?? null, by: wait.by, shortfall: wait.shortfall, waitingFor: wait.waitingFor },
  };
}
