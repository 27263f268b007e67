import { openRuntime, type Runtime } from '../app/runtime.ts';
import { BatchStateError, batchStates, retryableItemStatuses, type ReviewMark, reviewMarks } from '../batch/index.ts';
import { cliIdentity, requireRole, type CliIdentity } from './cli-identity.ts';
import { CliError, exitCodes } from './cli-error.ts';
import type { CliContext } from './context.ts';
import { table } from './output.ts';

export interface ReviewOptions {
  /** With --mark: the row's file line. */
  line?: number;
  mark?: string;
  reason?: string;
}

/**
 * `payout batch review ID`: reads the payment of each NEEDS_REVIEW row of the batch again
 * and settles what the partner proves (batch/review/review-states.ts), printing each row's verdict;
 * exit 4 while rows stay unknown. With `--line N --mark paid|pay-again|do-not-pay --reason
 * TEXT`: a person's verdict on one such row (approver or admin; not the batch's approver).
 */
export async function reviewCommand(batchId: string, options: ReviewOptions, context: CliContext): Promise<number> {
  const who = cliIdentity(context);
  if (options.mark !== undefined || options.line !== undefined || options.reason !== undefined) return markCommand(batchId, options, who, context);
  requireRole(who, 'reviewBatchItems', 'payout batch review');
  return withRuntime(context, who, async ({ services }) => {
    const report = await refusals(batchId, () => services.reviews.review(batchId, who.actor));
    await context.result({
      batchId,
      batchStatus: report.batch.status,
      settled: report.settled,
      unsettled: report.unsettled,
      rows: report.rows.map((r) => ({ line: r.line, paymentId: r.paymentId, verdict: r.verdict, status: r.status, message: r.message })),
    });
    if (report.rows.length === 0) {
      context.out(`Batch ${batchId} (${report.batch.status}) has no row under review.`);
      return exitCodes.ok;
    }
    context.out(table(['LINE', 'PAYMENT', 'VERDICT', 'STATUS', 'WHY'], report.rows.map((r) => [String(r.line), r.paymentId, r.verdict, r.status, r.message])));
    context.out(`${report.settled} settled, ${report.unsettled} still NEEDS_REVIEW. Batch ${batchId} is ${report.batch.status}.`);
    if (report.rows.some((r) => retryableItemStatuses.includes(r.status))) {
      context.out(`Rows proven unpaid are FAILED: they are paid again (new paymentIds) once the batch is asked to: retryFailedItems, or the page's "Pay failed rows again".`);
    }
    if (report.batch.status === batchStates.running) context.out(`Rows in progress upstream are read to their end by a worker (a running gateway, npm run worker, or: payout batch resume ${batchId}).`);
    if (report.unsettled > 0) {
      context.out(`Check again later, or mark each row: payout batch review ${batchId} --line N --mark paid|pay-again|do-not-pay --reason "…"`);
      return exitCodes.failures;
    }
    return exitCodes.ok;
  });
}

async function markCommand(batchId: string, options: ReviewOptions, who: CliIdentity, context: CliContext): Promise<number> {
  const usage = `payout batch review ${batchId} --line N --mark ${reviewMarks.join('|')} --reason "…"`;
  if (options.line === undefined || options.mark === undefined || options.reason === undefined) throw new CliError(`to mark a row give --line, --mark and --reason: ${usage}`, exitCodes.usage);
  if (!(reviewMarks as readonly string[]).includes(options.mark)) throw new CliError(`--mark is one of ${reviewMarks.join(', ')}`, exitCodes.usage);
  const mark = options.mark as ReviewMark;
  const line = options.line;
  const reason = options.reason;
  requireRole(who, 'markBatchItem', 'payout batch review --mark');
  return withRuntime(context, who, async ({ services }) => {
    const item = await refusals(batchId, () => services.reviews.mark(batchId, { line, mark, reason, caller: who.identity, by: who.actor }));
    context.out(`Line ${item.line} (${item.paymentId}) is now ${item.status}: ${item.errorMessage ?? ''}`);
    if (mark === 'pay-again') context.out('It is paid again (new paymentId) once failed rows are paid again: retryFailedItems, or the page.');
    await context.result({ batchId, line: item.line, paymentId: item.paymentId, mark, status: item.status, message: item.errorMessage });
    return exitCodes.ok;
  });
}

async function refusals<T>(batchId: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof BatchStateError)) throw error;
    throw new CliError(`batch ${batchId}: ${error.message} (${error.code})`, error.code === 'batch.not-found' ? exitCodes.usage : exitCodes.notPayable, error.code);
  }
}

async function withRuntime<T>(context: CliContext, who: CliIdentity, work: (runtime: Runtime) => Promise<T>): Promise<T> {
  // Maker-checker as the configuration says: forced off only for the one local operator.
  const runtime = await openRuntime({ ...context.config, singleUser: who.singleUser }, context.logger);
  try {
    return await work(runtime);
  } finally {
    await runtime.close();
  }
}
