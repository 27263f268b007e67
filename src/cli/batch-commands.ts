import { activeItemStatuses, failedItemStatuses, heldItemStatuses } from '../batch/item-states.ts';
import { batchStates, pauseReasons, payingStates } from '../batch/batch-states.ts';
import { waitingNow } from '../batch/batch-waiting.ts';
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { basename } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { finished } from 'node:stream/promises';
import { SingleBar } from 'cli-progress';
import { openRuntime, type Runtime } from '../app/runtime.ts';
import { exportChunks, reportRows, type ExportFormat } from '../batch/batch-export.ts';
import { BatchStateError } from '../batch/batch-service.ts';
import { cliActor, recordAudit } from '../ops/audit.ts';
import { FileKeyHash } from '../batch/file-key.ts';
import type { PrismaClient } from '../db/database.ts';
import type { Batch } from '../db/generated/client.ts';
import { cliIdentity, may, requireRole, type CliIdentity } from './cli-identity.ts';
import { CliError, exitCodes } from './cli-error.ts';
import { readable } from './input-file.ts';
import type { CliContext } from './context.ts';
import { problemTable, SHOWN_PROBLEMS, table } from './output.ts';

export { CliError, exitCodes, type CliContext };

async function withRuntime<T>(context: CliContext, who: CliIdentity, work: (runtime: Runtime) => Promise<T>): Promise<T> {
  // Maker-checker as the configuration says: forced off only for the one local operator.
  const runtime = await openRuntime({ ...context.config, singleUser: who.singleUser }, context.logger);
  try {
    return await work(runtime);
  } finally {
    await runtime.close();
  }
}

function withConcurrency(context: CliContext, concurrency: number | undefined): CliContext {
  if (concurrency === undefined) return context;
  return { ...context, config: { ...context.config, worker: { ...context.config.worker, concurrency, perBatchConcurrency: concurrency } } };
}

/** What `payout batch approve` takes; `run` takes the same and what importing needs. */
export interface ApproveOptions {
  concurrency?: number;
  yes?: boolean;
  validOnly?: boolean;
  /** Pay the rows flagged as repeating a payment too (an explicit, audited choice). */
  includeFlagged?: boolean;
  /** Start although the balance does not cover it (audited; the batch pauses when the money runs out). */
  ignoreBalance?: boolean;
}

export interface RunOptions extends ApproveOptions {
  force?: boolean;
  name?: string;
}

/**
 * `payout batch run FILE`: validate (writing nothing), confirm, then import, approve and
 * pay. Nothing is imported unless the command goes on (--yes, or yes at the terminal), so a
 * refused confirmation leaves no batch behind; a file already waiting for approval is
 * offered by id instead of being imported again. With a key that may import but not approve
 * (an operator), it imports for approval and stops there.
 */
export async function runCommand(file: string, options: RunOptions, context: CliContext): Promise<number> {
  const who = cliIdentity(context);
  requireRole(who, 'importBatch', 'payout batch run');
  const source = readable(file);
  return withRuntime(withConcurrency(context, options.concurrency), who, async (runtime) => {
    const { services } = runtime;
    const report = await services.importer.validate({ source, fileName: basename(file), force: options.force });
    context.out(
      `${basename(file)}: ${report.rowCount} rows, ${report.validCount} valid, ${report.invalidCount} invalid, ` +
        `${report.errorCount} errors, ${report.warningCount} warnings; valid rows total ${report.totalAmount} RUB.`,
    );
    if (report.problems.length > 0) context.out(problemTable(report.problems));
    if (report.problems.some((p) => p.code === 'file.duplicate')) {
      const waiting = await awaitingApproval(services.prisma, file);
      if (waiting !== null) {
        context.out(
          `This file is batch ${waiting.id}, imported ${waiting.createdAt.toISOString()}${waiting.uploadedBy === null ? '' : ` by ${waiting.uploadedBy}`} and waiting for approval. ` +
            `Approve it rather than importing it again: payout batch approve ${waiting.id}`,
        );
      }
      context.out('Nothing was imported.');
      return exitCodes.notPayable;
    }
    const payableRows = options.validOnly === true && report.validCount > 0;
    if (!report.payable && !payableRows) {
      context.out(`The file is not payable as it is; nothing was imported.${report.problems.length > SHOWN_PROBLEMS ? ` Every problem: payout batch validate ${file}` : ''}`);
      return exitCodes.notPayable;
    }
    const approving = may(who, 'approveBatch');
    const rows = report.payable ? `${report.validCount} rows` : `the ${report.validCount} valid rows`;
    const question = approving
      ? `Pay ${rows}, ${report.totalAmount} RUB plus commission? [y/N] `
      : `Import ${rows}, ${report.totalAmount} RUB, for an approver to approve? [y/N] `;
    if (!options.yes && !(await confirm(question, approving ? 'pay' : 'import'))) {
      context.out('Not confirmed; nothing was imported or paid.');
      return exitCodes.notPayable;
    }
    const batch = await services.importer.import({ source: readable(file), fileName: basename(file), name: options.name, force: options.force, uploadedBy: who.identity });
    if (options.force === true) {
      const detail = { fileName: basename(file), status: batch.status, rows: batch.rowCount };
      await recordAudit(services.prisma, who.actor, { action: 'batch.import.forced', batchId: batch.id, detail });
    }
    context.out(summary(batch));
    if (batch.status === batchStates.rejected && !(options.validOnly && batch.validCount > 0)) {
      // The file changed since it was validated, or another process imported it meanwhile.
      const problems = await services.prisma.batchProblem.findMany({ where: { batchId: batch.id }, orderBy: [{ line: 'asc' }, { id: 'asc' }], take: SHOWN_PROBLEMS + 1 });
      if (problems.length > 0) context.out(problemTable(problems));
      context.out(`Batch ${batch.id} is not payable. Full report: payout batch export ${batch.id} --problems`);
      return exitCodes.notPayable;
    }
    if (!approving) {
      context.out(`Batch ${batch.id} waits for an approver (another key): payout batch approve ${batch.id}${options.validOnly ? ' --valid-only' : ''}`);
      return exitCodes.ok;
    }
    return approveAndPay(runtime, batch.id, who, options, context);
  });
}

/** `payout batch approve ID`: an approver's decision on a batch someone else imported, then paying it with progress. */
export async function approveCommand(batchId: string, options: ApproveOptions, context: CliContext): Promise<number> {
  const who = cliIdentity(context);
  requireRole(who, 'approveBatch', 'payout batch approve');
  return withRuntime(withConcurrency(context, options.concurrency), who, async (runtime) => {
    const batch = await runtime.services.prisma.batch.findUnique({ where: { id: batchId } });
    if (batch === null) throw new CliError(`no batch ${batchId}`, exitCodes.usage);
    context.out(summary(batch));
    const held = options.includeFlagged ? 0 : batch.flaggedCount;
    const payable = batch.totalAmount.minus(options.includeFlagged ? 0 : batch.flaggedAmount).toFixed(2);
    const rows = options.validOnly ? `the ${batch.validCount - held} valid rows` : `${batch.validCount - held} rows`;
    if (held > 0) context.out(`${held} rows (${batch.flaggedAmount.toFixed(2)} RUB) repeat a payment already made or under way and are not paid; --include-flagged pays them too.`);
    if (!options.yes && !(await confirm(`Pay ${rows}, ${payable} RUB plus commission? [y/N] `, 'pay'))) {
      context.out('Not confirmed; nothing was paid.');
      return exitCodes.notPayable;
    }
    return approveAndPay(runtime, batchId, who, options, context);
  });
}

async function approveAndPay(
  runtime: Runtime,
  batchId: string,
  who: CliIdentity,
  options: { validOnly?: boolean; includeFlagged?: boolean; ignoreBalance?: boolean },
  context: CliContext,
): Promise<number> {
  try {
    await runtime.services.batches.approve(batchId, {
      approver: who.identity,
      validRowsOnly: options.validOnly ?? false,
      includeFlagged: options.includeFlagged ?? false,
      ignoreBalance: options.ignoreBalance ?? false,
      by: who.actor,
    });
  } catch (error) {
    if (!(error instanceof BatchStateError)) throw error;
    const next =
      error.code === 'batch.same-person'
        ? ` (you are ${who.identity}); another approver or admin key approves it: payout batch approve ${batchId}`
        : error.code === 'batch.insufficient-funds' || error.code === 'batch.balance-unknown'
          ? ` (--ignore-balance starts it anyway)`
          : '';
    throw new CliError(`batch ${batchId}: ${error.message}${next}`, exitCodes.notPayable);
  }
  return payWithProgress(runtime, batchId, context);
}

/**
 * The batch this file was imported as that still waits for approval: the same content
 * (the importer's file key: BOM and line ends aside) or the same bytes.
 */
async function awaitingApproval(prisma: PrismaClient, file: string): Promise<Pick<Batch, 'id' | 'createdAt' | 'uploadedBy'> | null> {
  const content = new FileKeyHash();
  const bytes = createHash('sha256');
  for await (const chunk of readable(file)) {
    content.update(chunk);
    bytes.update(chunk);
  }
  return prisma.batch.findFirst({
    where: { status: batchStates.validated, OR: [{ fileKey: content.digest() }, { fileHash: bytes.digest('hex') }] },
    orderBy: { createdAt: 'desc' },
    select: { id: true, createdAt: true, uploadedBy: true },
  });
}

export async function resumeCommand(batchId: string, context: CliContext): Promise<number> {
  const who = cliIdentity(context);
  requireRole(who, 'resumeBatch', 'payout batch resume');
  return withRuntime(context, who, async (runtime) => {
    const batch = await runtime.services.prisma.batch.findUnique({ where: { id: batchId } });
    if (batch === null) throw new CliError(`no batch ${batchId}`, exitCodes.usage);
    if (batch.status === batchStates.paused) {
      await runtime.services.batches.resume(batchId, who.actor);
      context.out(`Batch ${batchId} resumed (it was paused ${batch.pauseReason === pauseReasons.funds ? 'for lack of funds' : `by ${batch.pausedBy ?? 'a person'}`}).`);
    } else if (!payingStates.includes(batch.status)) {
      throw new CliError(`batch ${batchId} is ${batch.status}, not RUNNING or PAUSED`, exitCodes.notPayable);
    }
    return payWithProgress(runtime, batchId, context);
  });
}

/** Pauses a running batch: nothing new is sent until `payout batch resume`; payments in flight end their step. */
export async function pauseCommand(batchId: string, context: CliContext): Promise<number> {
  const who = cliIdentity(context);
  requireRole(who, 'pauseBatch', 'payout batch pause');
  return withRuntime(context, who, async (runtime) => {
    let batch: Batch;
    try {
      batch = await runtime.services.batches.pause(batchId, who.actor);
    } catch (error) {
      if (!(error instanceof BatchStateError)) throw error;
      throw new CliError(`batch ${batchId}: ${error.message}`, error.code === 'batch.not-found' ? exitCodes.usage : exitCodes.notPayable);
    }
    context.out(await statusText(runtime, batch));
    context.out(`Resume it with: payout batch resume ${batchId}`);
    return exitCodes.ok;
  });
}

/** Runs the worker until the batch finishes; Ctrl-C stops starting payments and waits for those in flight. */
async function payWithProgress(runtime: Runtime, batchId: string, context: CliContext): Promise<number> {
  const { services, worker } = runtime;
  const bar = new SingleBar({
    format: '{bar} {percentage}% | {value}/{total} rows | paid {paid} RUB | failed {failed} | {rate} rows/s | ETA {eta_formatted}{note}',
    hideCursor: true,
    noTTYOutput: true,
    notTTYSchedule: 2_000,
    etaBuffer: 50,
  });
  let interrupted = false;
  let note = '';
  let stopped = false;
  const onSignal = () => {
    if (interrupted) process.exit(exitCodes.interrupted);
    interrupted = true;
    // Said on the bar itself: a separate line would be overwritten by its next redraw.
    note = ' | stopping: no new payments, waiting for those in flight (Ctrl-C again to quit)';
    void worker.stop();
  };
  process.on('SIGINT', onSignal);
  const start = await services.batches.get(batchId);
  const total = (start.validRowsOnly || start.status === batchStates.running ? start.validCount : start.rowCount) - (start.includeFlagged ? 0 : start.flaggedCount);
  bar.start(total, 0, { paid: '0.00', failed: 0, rate: '0.0', note });
  const refresh = async () => {
    const batch = await services.batches.get(batchId);
    const progress = await services.batches.progress(batch);
    const of = (status: string) => progress.counts.find((c) => c.status === status);
    const done = progress.counts.filter((c) => !activeItemStatuses.includes(c.status) && !heldItemStatuses.includes(c.status)).reduce((sum, c) => sum + c.count, 0);
    const failed = failedItemStatuses.reduce((sum, s) => sum + (of(s)?.count ?? 0), 0);
    const wait = interrupted ? null : await waitingNow(services.prisma, batch);
    const shown = wait === null ? note : ` | waiting: ${wait.waitingFor}`;
    if (!stopped) bar.update(done, { paid: of('COMPLETED')?.amount ?? '0.00', failed, rate: (progress.throughput ?? 0).toFixed(1), note: shown });
    return batch;
  };
  let refreshing: Promise<unknown> = Promise.resolve();
  const ticker = setInterval(() => {
    refreshing = refresh().catch(() => {});
  }, 250);
  try {
    // Only this batch: `payout batch run` must not pay other batches that happen to be running.
    // A batch paused for funds goes on by itself after a top-up: the bar waits and says so. Paused by a person: stop.
    const goesOn = (batch: Batch) => payingStates.includes(batch.status) || (batch.status === batchStates.paused && batch.pauseReason === pauseReasons.funds);
    await worker.drain(async () => interrupted || !goesOn(await services.batches.get(batchId)), batchId);
    await worker.stop();
  } finally {
    clearInterval(ticker);
    process.off('SIGINT', onSignal);
  }
  await refreshing;
  const batch = await refresh();
  stopped = true;
  bar.stop();
  context.out(await statusText(runtime, batch));
  if (interrupted) {
    context.out(`Interrupted. The rest of batch ${batchId} is paid by: payout batch resume ${batchId} (or a running gateway or worker).`);
    return exitCodes.interrupted;
  }
  return batch.status === batchStates.completed ? exitCodes.ok : exitCodes.failures;
}

/** Reads need no key (and read no key file); they approve nothing, so maker-checker does not matter. */
const reader = (context: CliContext): CliIdentity => ({ identity: 'read-only', role: undefined, actor: cliActor(), singleUser: context.config.singleUser });

export async function statusCommand(batchId: string, context: CliContext): Promise<number> {
  return withRuntime(context, reader(context), async (runtime) => {
    const batch = await runtime.services.prisma.batch.findUnique({ where: { id: batchId } });
    if (batch === null) throw new CliError(`no batch ${batchId}`, exitCodes.usage);
    context.out(await statusText(runtime, batch));
    return exitCodes.ok;
  });
}

export async function exportCommand(batchId: string, options: { output?: string; problems?: boolean; format?: ExportFormat }, context: CliContext): Promise<number> {
  return withRuntime(context, reader(context), async ({ services }) => {
    const batch = await services.prisma.batch.findUnique({ where: { id: batchId }, select: { id: true } });
    if (batch === null) throw new CliError(`no batch ${batchId}`, exitCodes.usage);
    const rows = reportRows(services.prisma, batchId, options.problems ? 'problems' : 'results');
    const target = options.output === undefined ? process.stdout : createWriteStream(options.output);
    for await (const chunk of exportChunks(rows, options.format ?? 'csv')) {
      if (!target.write(chunk)) await new Promise<void>((resolve) => target.once('drain', () => resolve()));
    }
    if (target !== process.stdout) {
      target.end();
      await finished(target);
      context.out(`wrote ${options.output}`);
    }
    return exitCodes.ok;
  });
}

function summary(batch: Batch): string {
  return (
    `Batch ${batch.id} (${batch.name}): ${batch.status}. ${batch.rowCount} rows, ${batch.validCount} valid, ` +
    `${batch.invalidCount} invalid, ${batch.warningCount} warnings; valid rows total ${batch.totalAmount.toFixed(2)} ${batch.currency}.` +
    (batch.flaggedCount > 0 ? ` ${batch.flaggedCount} rows (${batch.flaggedAmount.toFixed(2)} ${batch.currency}) repeat a payment and are held back.` : '') +
    (batch.forced ? ' Imported with --force: the same file was imported before.' : '')
  );
}

async function statusText(runtime: Runtime, batch: Batch): Promise<string> {
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

/** Asked before anything is written: without a terminal the refusal leaves nothing behind. */
async function confirm(question: string, verb: 'pay' | 'import'): Promise<boolean> {
  if (!process.stdin.isTTY) throw new CliError(`no terminal to confirm on; nothing was imported or paid. Pass --yes to ${verb} without asking`, exitCodes.usage);
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}
