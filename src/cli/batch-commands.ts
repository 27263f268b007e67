import { activeItemStatuses, BatchStateError, batchStates, exportChunks, type ExportFormat, failedItemStatuses, FileKeyHash, notSentItemStatuses, pauseReasons, payingStates, reportRows, rowStates, waitingNow } from '../batch/index.ts';
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { basename } from 'node:path';
import { finished } from 'node:stream/promises';
import { openRuntime, type Runtime } from '../app/runtime.ts';
import { cliActor, recordAudit } from '../audit/audit.ts';
import type { PrismaClient } from '../db/database.ts';
import type { Batch } from '../db/generated/client.ts';
import { fromMinorUnits } from '../money/money.ts';
import { cliIdentity, may, requireRole, type CliIdentity } from './cli-identity.ts';
import { CliError, exitCodes } from './cli-error.ts';
import { readable } from './input-file.ts';
import type { CliContext } from './context.ts';
import { problemTable, SHOWN_PROBLEMS, validationDoc } from './output.ts';
import { rowObjects } from './json-output.ts';
import { progress } from './progress.ts';
import { confirm, nothingAskedWithJson, type ApproveOptions } from './batch/pay-commands.ts';
import { statusDoc, statusText, summary } from './batch-status.ts';

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
  nothingAskedWithJson(context, options, 'import and pay');
  const source = readable(file);
  return withRuntime(withConcurrency(context, options.concurrency), who, async (runtime) => {
    const { services } = runtime;
    const report = await services.importer.validate({ source, fileName: basename(file), force: options.force });
    context.out(
      `${basename(file)}: ${report.rowCount} rows, ${report.validCount} valid, ${report.invalidCount} invalid, ` +
        `${report.errorCount} errors, ${report.warningCount} warnings; valid rows total ${report.totalAmount} RUB.`,
    );
    if (report.problems.length > 0) context.out(problemTable(report.problems));
    const validation = { file: basename(file), ...validationDoc(report) };
    if (report.problems.some((p) => p.code === 'file.duplicate')) {
      const waiting = await awaitingApproval(services.prisma, file);
      if (waiting !== null) {
        context.out(
          `This file is batch ${waiting.id}, imported ${waiting.createdAt.toISOString()}${waiting.uploadedBy === null ? '' : ` by ${waiting.uploadedBy}`} and waiting for approval. ` +
            `Approve it rather than importing it again: payout batch approve ${waiting.id}`,
        );
      }
      context.out('Nothing was imported.');
      await context.result({ outcome: 'duplicate', validation, awaitingApproval: waiting?.id ?? null, batch: null });
      return exitCodes.notPayable;
    }
    const payableRows = options.validOnly === true && report.validCount > 0;
    if (!report.payable && !payableRows) {
      context.out(`The file is not payable as it is; nothing was imported.${report.problems.length > SHOWN_PROBLEMS ? ` Every problem: payout batch validate ${file}` : ''}`);
      await context.result({ outcome: 'not-payable', validation, batch: null });
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
      // The import itself could not finish (the database connection was lost, say): not a "no" about the file.
      const failed = problems.find((problem) => problem.code === 'import.failed');
      if (failed !== undefined) throw new CliError(`batch ${batch.id}: ${failed.message} (payout batch run ${file})`, exitCodes.failed, 'import.failed');
      context.out(`Batch ${batch.id} is not payable. Full report: payout batch export ${batch.id} --problems`);
      await context.result({ outcome: 'not-payable', validation, batch: await statusDoc(runtime, batch) });
      return exitCodes.notPayable;
    }
    if (!approving) {
      context.out(`Batch ${batch.id} waits for an approver (another key): payout batch approve ${batch.id}${options.validOnly ? ' --valid-only' : ''}`);
      await context.result({ outcome: 'awaiting-approval', validation, batch: await statusDoc(runtime, batch) });
      return exitCodes.ok;
    }
    return approveAndPay(runtime, batch.id, who, options, context, { outcome: 'paid', validation });
  });
}

async function approveAndPay(
  runtime: Runtime,
  batchId: string,
  who: CliIdentity,
  options: { validOnly?: boolean; includeHeld?: boolean; ignoreBalance?: boolean },
  context: CliContext,
  doc: Record<string, unknown>,
): Promise<number> {
  try {
    await runtime.services.batches.approve(batchId, {
      approver: who.identity,
      validRowsOnly: options.validOnly ?? false,
      includeHeld: options.includeHeld ?? false,
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
    throw new CliError(`batch ${batchId}: ${error.message}${next}`, error.code === 'batch.not-found' ? exitCodes.usage : exitCodes.notPayable, error.code);
  }
  return payWithProgress(runtime, batchId, context, doc);
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

/**
 * Runs the worker until the batch finishes; Ctrl-C stops starting payments and waits for
 * those in flight. With --json the document is `doc` and the batch as it ended.
 */
async function payWithProgress(runtime: Runtime, batchId: string, context: CliContext, doc: Record<string, unknown>): Promise<number> {
  const { services, worker } = runtime;
  const bar = progress<{ paid: string; failed: number; rate: number; note: string; waitingFor: string | null }>(
    context,
    'batch',
    '{bar} {percentage}% | {value}/{total} rows | paid {paid} RUB | failed {failed} | {rate} rows/s | ETA {eta_formatted}{note}',
    ({ paid, failed, rate, waitingFor }) => ({ batchId, paid, failed, rate, waitingFor, stopping: interrupted }),
    { etaBuffer: 50 },
  );
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
  const total = (start.validRowsOnly || start.status === batchStates.running ? start.validCount : start.rowCount) - (start.includeHeld ? 0 : start.heldCount);
  bar.start(total, { paid: '0.00', failed: 0, rate: 0, note, waitingFor: null });
  const refresh = async () => {
    const batch = await services.batches.get(batchId);
    const progress = await services.batches.progress(batch);
    const of = (status: string) => progress.counts.find((c) => c.status === status);
    const done = progress.counts.filter((c) => !activeItemStatuses.includes(c.status) && !notSentItemStatuses.includes(c.status)).reduce((sum, c) => sum + c.count, 0);
    const failed = failedItemStatuses.reduce((sum, s) => sum + (of(s)?.count ?? 0), 0);
    const wait = interrupted ? null : await waitingNow(services.prisma, batch);
    const shown = wait === null ? note : ` | waiting: ${wait.waitingFor}`;
    const rate = Math.round((progress.throughput ?? 0) * 10) / 10;
    if (!stopped) bar.update(done, { paid: of(rowStates.completed)?.amount ?? '0.00', failed, rate, note: shown, waitingFor: wait?.waitingFor ?? null });
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
  if (interrupted) context.out(`Interrupted. The rest of batch ${batchId} is paid by: payout batch resume ${batchId} (or a running gateway or worker).`);
  await context.result({ ...doc, interrupted, batch: await statusDoc(runtime, batch) });
  if (interrupted) return exitCodes.interrupted;
  return batch.status === batchStates.completed ? exitCodes.ok : exitCodes.failures;
}

/** Reads need no key (and read no key file); they approve nothing, so maker-checker does not matter. */
const reader = (context: CliContext): CliIdentity => ({ identity: 'read-only', role: undefined, actor: cliActor(), singleUser: context.config.singleUser });

export interface ExportOptions {
  output?: string;
  problems?: boolean;
  format?: ExportFormat;
  /** --format was given, not left at its default (it means nothing for --json rows on stdout). */
  formatGiven?: boolean;
}

export async function exportCommand(batchId: string, options: ExportOptions, context: CliContext): Promise<number> {
  const kind = options.problems ? 'problems' : 'results';
  const format = options.format ?? 'csv';
  if (context.json && options.output === undefined && options.formatGiven === true) {
    throw new CliError('payout batch export: --format is the format of the file -o writes; with --json and no -o the rows are JSON', exitCodes.usage);
  }
  return withRuntime(context, reader(context), async ({ services }) => {
    const batch = await services.prisma.batch.findUnique({ where: { id: batchId }, select: { id: true } });
    if (batch === null) throw new CliError(`no batch ${batchId}`, exitCodes.usage, 'batch.not-found');
    const rows = reportRows(services.prisma, batchId, kind);
    if (context.json && options.output === undefined) {
      // The rows themselves, as the export's columns: the same masked cells as the CSV.
      await context.result({ batchId, kind }, { key: 'rows', items: rowObjects(rows) });
      return exitCodes.ok;
    }
    const target = options.output === undefined ? process.stdout : createWriteStream(options.output);
    let written = 0;
    for await (const chunk of exportChunks(countRows(rows, () => written++), format)) {
      if (!target.write(chunk)) await new Promise<void>((resolve) => target.once('drain', () => resolve()));
    }
    if (target !== process.stdout) {
      target.end();
      await finished(target);
      context.out(`wrote ${options.output}`);
      await context.result({ batchId, kind, format, output: options.output, rows: Math.max(0, written - 1) });
    }
    return exitCodes.ok;
  });
}

async function* countRows<T>(rows: AsyncIterable<T>, counted: () => void): AsyncGenerator<T> {
  for await (const row of rows) {
    counted();
    yield row;
  }
}
