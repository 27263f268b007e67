import { batchStates, retryableItemStatuses, reviewMarks } from '../../batch/cli-face.ts';
import type { BatchItemStatus } from '../../db/generated/enums.ts';
import { CliError, exitCodes } from '../cli-error.ts';
import type { CliContext } from '../context.ts';
import { refusal, type GatewayClient } from '../gateway/gateway-client.ts';
import { table } from '../output.ts';
import { actingCaller, requireRole, withConnection } from './pay-commands.ts';

export interface ReviewOptions {
  /** With --mark: the row's file line. */
  line?: number;
  mark?: string;
  reason?: string;
}

/** GraphQL's enum value (CREATED_NOT_EXECUTED, DO_NOT_PAY) in the CLI's words (created-not-executed, do-not-pay). */
const words = (value: string) => value.toLowerCase().replaceAll('_', '-');
const enumOf = (word: string) => word.toUpperCase().replaceAll('-', '_');

type Outcome<T> = { code?: string; message?: string } & T;

/**
 * `payout batch review ID` (reviewBatchItems): reads the payment of each NEEDS_REVIEW row
 * again and settles what the partner proves, printing each row's verdict; exit 4 while rows
 * stay unknown. With `--line N --mark paid|pay-again|do-not-pay --reason TEXT`
 * (markBatchItem): a person's verdict on one such row.
 */
export async function reviewCommand(batchId: string, options: ReviewOptions, context: CliContext): Promise<number> {
  if (options.mark !== undefined || options.line !== undefined || options.reason !== undefined)
    return markCommand(batchId, options, context);
  return withConnection(context, undefined, async ({ client }) => {
    requireRole(await actingCaller(client, 'payout batch review'), 'reviewBatchItems', 'payout batch review');
    const { result } = await client.graphql<{
      result: Outcome<{
        review?: {
          batch: { status: string };
          settled: number;
          unsettled: number;
          rows: Array<{ line: number; paymentId: string; verdict: string; status: string; message: string }>;
        };
      }>;
    }>(
      `mutation CliReview($id: ID!) { result: reviewBatchItems(id: $id) {
        ... on BatchError { code message }
        ... on ReviewBatchItemsSuccess { review { batch { status } settled unsettled rows { line paymentId verdict status message } } } } }`,
      { id: batchId },
    );
    const review = refused(result, batchId).review!;
    const rows = review.rows.map((r) => ({ ...r, verdict: words(r.verdict) }));
    await context.result({ batchId, batchStatus: review.batch.status, settled: review.settled, unsettled: review.unsettled, rows });
    if (rows.length === 0) {
      context.out(`Batch ${batchId} (${review.batch.status}) has no row under review.`);
      return exitCodes.ok;
    }
    context.out(
      table(
        ['LINE', 'PAYMENT', 'VERDICT', 'STATUS', 'WHY'],
        rows.map((r) => [String(r.line), r.paymentId, r.verdict, r.status, r.message]),
      ),
    );
    context.out(`${review.settled} settled, ${review.unsettled} still NEEDS_REVIEW. Batch ${batchId} is ${review.batch.status}.`);
    if (rows.some((r) => retryableItemStatuses.includes(r.status as BatchItemStatus))) {
      context.out(`Rows proven unpaid are FAILED: they are paid again (new paymentIds) by: payout batch retry ${batchId}`);
    }
    if (review.batch.status === batchStates.running)
      context.out(
        `Rows in progress upstream are read to their end by a worker (a running gateway, npm run worker, or: payout batch resume ${batchId}).`,
      );
    if (review.unsettled > 0) {
      context.out(
        `Check again later, or mark each row: payout batch review ${batchId} --line N --mark ${reviewMarks.join('|')} --reason "…"`,
      );
      return exitCodes.failures;
    }
    return exitCodes.ok;
  });
}

async function markCommand(batchId: string, options: ReviewOptions, context: CliContext): Promise<number> {
  const usage = `payout batch review ${batchId} --line N --mark ${reviewMarks.join('|')} --reason "…"`;
  if (options.line === undefined || options.mark === undefined || options.reason === undefined)
    throw new CliError(`to mark a row give --line, --mark and --reason: ${usage}`, exitCodes.usage);
  if (!(reviewMarks as readonly string[]).includes(options.mark))
    throw new CliError(`--mark is one of ${reviewMarks.join(', ')}`, exitCodes.usage);
  const { line, mark, reason } = options;
  return withConnection(context, undefined, async ({ client }) => {
    requireRole(await actingCaller(client, 'payout batch review --mark'), 'markBatchItem', 'payout batch review --mark');
    const item = await markItem(client, batchId, line, mark, reason);
    context.out(`Line ${item.line} (${item.paymentId}) is now ${item.status}: ${item.errorMessage ?? ''}`);
    if (mark === 'pay-again')
      context.out(`It is paid again (new paymentId) once failed rows are paid again: payout batch retry ${batchId}`);
    await context.result({ batchId, line: item.line, paymentId: item.paymentId, mark, status: item.status, message: item.errorMessage });
    return exitCodes.ok;
  });
}

async function markItem(client: GatewayClient, batchId: string, line: number, mark: string, reason: string) {
  const { result } = await client.graphql<{
    result: Outcome<{ item?: { line: number; paymentId: string; status: string; errorMessage: string | null } }>;
  }>(
    `mutation CliMark($id: ID!, $line: Int!, $mark: ReviewMark!, $reason: String!) { result: markBatchItem(id: $id, line: $line, mark: $mark, reason: $reason) {
      ... on BatchError { code message } ... on MarkBatchItemSuccess { item { line paymentId status errorMessage } } } }`,
    { id: batchId, line, mark: enumOf(mark), reason },
  );
  return refused(result, batchId).item!;
}

/** A mutation's typed refusal (BatchError) as the CLI's error, with its code in the message as before. */
function refused<T extends { code?: string; message?: string }>(result: T, batchId: string): T {
  if (result.code === undefined) return result;
  const error = refusal({ code: result.code, message: result.message ?? result.code }, `batch ${batchId}`);
  throw new CliError(`${error.message} (${error.code})`, error.exitCode, error.code);
}
