import { activeItemStatuses, failedItemStatuses } from '../batch/item-states.ts';
import { createWriteStream } from 'node:fs';
import { basename } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { finished } from 'node:stream/promises';
import { userInfo } from 'node:os';
import { SingleBar } from 'cli-progress';
import { openRuntime, type Runtime } from '../app/runtime.ts';
import { exportChunks, reportRows, type ExportFormat } from '../batch/batch-export.ts';
import { BatchStateError } from '../batch/batch-service.ts';
import { cliActor, recordAudit } from '../ops/audit.ts';
import type { Batch } from '../db/generated/client.ts';
import { CliError, exitCodes } from './cli-error.ts';
import { readable } from './input-file.ts';
import type { CliContext } from './context.ts';
import { problemTable, table } from './output.ts';

export { CliError, exitCodes, type CliContext };

const operator = () => `cli:${userInfo().username}`;

async function withRuntime<T>(context: CliContext, work: (runtime: Runtime) => Promise<T>): Promise<T> {
  // The person at the terminal uploads and confirms: one trusted operator.
  const runtime = await openRuntime({ ...context.config, singleUser: true }, context.logger);
  try {
    return await work(runtime);
  } finally {
    await runtime.close();
  }
}

export interface RunOptions {
  concurrency?: number;
  yes?: boolean;
  validOnly?: boolean;
  force?: boolean;
  name?: string;
}

export async function runCommand(file: string, options: RunOptions, context: CliContext): Promise<number> {
  const source = readable(file);
  const config = options.concurrency === undefined ? context.config : { ...context.config, worker: { ...context.config.worker, concurrency: options.concurrency, perBatchConcurrency: options.concurrency } };
  return withRuntime({ ...context, config }, async (runtime) => {
    const { services } = runtime;
    const batch = await services.importer.import({ source, fileName: basename(file), name: options.name, force: options.force, uploadedBy: operator() });
    if (options.force === true) {
      const detail = { fileName: basename(file), status: batch.status, rows: batch.rowCount };
      await recordAudit(services.prisma, cliActor(), { action: 'batch.import.forced', batchId: batch.id, detail });
    }
    context.out(summary(batch));
    const problems = await services.prisma.batchProblem.findMany({ where: { batchId: batch.id }, orderBy: [{ line: 'asc' }, { id: 'asc' }], take: 51 });
    if (problems.length > 0) context.out(problemTable(problems));
    if (problems.some((p) => p.code === 'file.duplicate')) {
      context.out(`To import and pay the same file again as a new batch: payout batch run ${file} --force`);
    }
    if (batch.status === 'REJECTED' && !(options.validOnly && batch.validCount > 0)) {
      context.out(`Batch ${batch.id} is not payable. Full report: payout batch export ${batch.id} --problems`);
      return exitCodes.notPayable;
    }
    const paying = options.validOnly && batch.status === 'REJECTED' ? `the ${batch.validCount} valid rows` : `${batch.validCount} rows`;
    if (!options.yes && !(await confirm(`Pay ${paying}, ${batch.totalAmount.toFixed(2)} RUB plus commission? [y/N] `))) {
      context.out('Not confirmed; nothing was paid.');
      return exitCodes.notPayable;
    }
    try {
      await services.batches.approve(batch.id, { approver: operator(), validRowsOnly: options.validOnly ?? false, by: cliActor() });
    } catch (error) {
      if (error instanceof BatchStateError) throw new CliError(error.message, exitCodes.notPayable);
      throw error;
    }
    return payWithProgress(runtime, batch.id, context);
  });
}

export async function resumeCommand(batchId: string, context: CliContext): Promise<number> {
  return withRuntime(context, async (runtime) => {
    const batch = await runtime.services.prisma.batch.findUnique({ where: { id: batchId } });
    if (batch === null) throw new CliError(`no batch ${batchId}`, exitCodes.usage);
    if (batch.status !== 'RUNNING') throw new CliError(`batch ${batchId} is ${batch.status}, not RUNNING`, exitCodes.notPayable);
    return payWithProgress(runtime, batchId, context);
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
  const total = start.validRowsOnly || start.status === 'RUNNING' ? start.validCount : start.rowCount;
  bar.start(total, 0, { paid: '0.00', failed: 0, rate: '0.0', note });
  const refresh = async () => {
    const batch = await services.batches.get(batchId);
    const progress = await services.batches.progress(batch);
    const of = (status: string) => progress.counts.find((c) => c.status === status);
    const done = progress.counts.filter((c) => !activeItemStatuses.includes(c.status) && c.status !== 'INVALID').reduce((sum, c) => sum + c.count, 0);
    const failed = failedItemStatuses.reduce((sum, s) => sum + (of(s)?.count ?? 0), 0);
    if (!stopped) bar.update(done, { paid: of('COMPLETED')?.amount ?? '0.00', failed, rate: (progress.throughput ?? 0).toFixed(1), note });
    return batch;
  };
  let refreshing: Promise<unknown> = Promise.resolve();
  const ticker = setInterval(() => {
    refreshing = refresh().catch(() => {});
  }, 250);
  try {
    // Only this batch: `payout batch run` must not pay other batches that happen to be running.
    await worker.drain(async () => interrupted || (await services.batches.get(batchId)).status !== 'RUNNING', batchId);
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
  return batch.status === 'COMPLETED' ? exitCodes.ok : exitCodes.failures;
}

export async function statusCommand(batchId: string, context: CliContext): Promise<number> {
  return withRuntime(context, async (runtime) => {
    const batch = await runtime.services.prisma.batch.findUnique({ where: { id: batchId } });
    if (batch === null) throw new CliError(`no batch ${batchId}`, exitCodes.usage);
    context.out(await statusText(runtime, batch));
    return exitCodes.ok;
  });
}

export async function exportCommand(batchId: string, options: { output?: string; problems?: boolean; format?: ExportFormat }, context: CliContext): Promise<number> {
  return withRuntime(context, async ({ services }) => {
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
    `${batch.invalidCount} invalid, ${batch.warningCount} warnings; valid rows total ${batch.totalAmount.toFixed(2)} ${batch.currency}.`
  );
}

async function statusText(runtime: Runtime, batch: Batch): Promise<string> {
  const progress = await runtime.services.batches.progress(batch);
  const rows = progress.counts.map((c) => [c.status, String(c.count), c.amount]);
  const timing = [
    batch.startedAt === null ? null : `started ${batch.startedAt.toISOString()}`,
    batch.finishedAt === null ? null : `finished ${batch.finishedAt.toISOString()}`,
    progress.throughput === null ? null : `${progress.throughput.toFixed(1)} rows/s`,
    progress.secondsLeft === null || batch.finishedAt !== null ? null : `about ${Math.ceil(progress.secondsLeft)} s left`,
  ].filter((part) => part !== null);
  return `${summary(batch)}\n${table(['STATUS', 'ROWS', 'AMOUNT'], rows)}${timing.length > 0 ? `\n${timing.join(', ')}` : ''}`;
}

async function confirm(question: string): Promise<boolean> {
  if (!process.stdin.isTTY) throw new CliError('no terminal to confirm on; pass --yes to pay without asking', exitCodes.usage);
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}
