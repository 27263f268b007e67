import { CliError, exitCodes } from '../cli-error.ts';
import type { CliContext } from '../context.ts';
import { table } from '../output.ts';
import { refusal, type GatewayClient } from '../gateway/gateway-client.ts';
import { BATCH_FIELDS, statusDoc, statusText, type BatchView } from './batch-view.ts';
import { withGateway } from './gateway-commands.ts';
import { actingCaller, requireRole } from './caller.ts';
import { localAmount } from '../../money/money-text.ts';
import { timeText } from './words.ts';

/** A date and time with no offset is the terminal's own zone: what a clerk types ("2026-11-28 09:00"). */
const LOCAL = /^(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d(?::\d\d)?)$/;
/** With an offset or Z: ISO 8601 as the API takes it. */
const WITH_OFFSET = /^\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d)$/;

/**
 * `--pay-at`: an ISO 8601 time with its offset, or a local date and time. Refused (exit 2)
 * when it is neither; whether it is ahead and within the horizon is the gateway's to say.
 */
export function parsePayAt(text: string): Date {
  const trimmed = text.trim();
  const local = LOCAL.exec(trimmed);
  // new Date('YYYY-MM-DDTHH:MM') is read in the process's time zone: the terminal's.
  const at = local !== null ? new Date(`${local[1]}T${local[2]}`) : WITH_OFFSET.test(trimmed) ? new Date(trimmed) : new Date(Number.NaN);
  if (Number.isNaN(at.getTime())) {
    throw new CliError(
      `--pay-at ${JSON.stringify(text)} is not a date and time: give "2026-11-28 09:00" (this terminal's time zone) or "2026-11-28T09:00+03:00"`,
      exitCodes.usage,
      'cli.usage',
    );
  }
  return at;
}

/** What `approve --pay-at` prints once the gateway has scheduled the batch: nothing is followed, the workers start it. */
export async function scheduledReply(
  batch: BatchView & { payAt?: string | null },
  context: CliContext,
  doc: Record<string, unknown>,
): Promise<number> {
  context.out(
    `Batch ${batch.id} is scheduled for ${timeText(batch.payAt!)}: nothing is sent before then, and it starts by itself on any running worker (npm start, or npm run worker).`,
  );
  context.out(
    `Move it with: payout batch reschedule ${batch.id} --pay-at "<date and time>"; cancel it with: payout batch cancel ${batch.id}`,
  );
  await context.result({ ...doc, outcome: 'scheduled', batch: statusDoc(batch) });
  return exitCodes.ok;
}

/** `payout batch reschedule ID --pay-at TIME`: a waiting batch's new time to pay (the roles that approve). */
export async function rescheduleCommand(batchId: string, options: { payAt: string }, context: CliContext): Promise<number> {
  const payAt = parsePayAt(options.payAt);
  return withGateway(context, async (client) => {
    requireRole(await actingCaller(client, 'payout batch reschedule'), 'approveBatch', 'payout batch reschedule');
    const { result } = await client.graphql<{ result: { batch?: BatchView; code?: string; message?: string } }>(
      `mutation CliReschedule($id: ID!, $payAt: DateTime!) { result: rescheduleBatch(id: $id, payAt: $payAt) {
        ... on BatchError { code message } ... on RescheduleBatchSuccess { batch { ${BATCH_FIELDS} } } } }`,
      { id: batchId, payAt: payAt.toISOString() },
    );
    if (result.batch === undefined)
      throw refusal({ code: result.code ?? 'BATCH_ERROR', message: result.message ?? 'rescheduleBatch' }, `batch ${batchId}`);
    context.out(statusText(result.batch));
    await context.result({ batch: statusDoc(result.batch) });
    return exitCodes.ok;
  });
}

interface Upcoming {
  id: string;
  name: string;
  payAt: string;
  validCount: number;
  totalAmount: { value: string; currency: string };
  forecast: { shortfall: { value: string } | null; readAt: string | null } | null;
}

/** `payout batch list --scheduled`: the upcoming paydays, soonest first, with their totals and forecast. */
export async function listScheduledCommand(context: CliContext): Promise<number> {
  return withGateway(context, async (client: GatewayClient) => {
    const { upcomingPaydays } = await client.graphql<{ upcomingPaydays: Upcoming[] }>(
      'query CliUpcoming { upcomingPaydays { id name payAt validCount totalAmount { value currency } forecast { shortfall { value } readAt } } }',
    );
    const rows = upcomingPaydays.map((b) => [
      b.id,
      timeText(b.payAt),
      String(b.validCount),
      localAmount(b.totalAmount.value, b.totalAmount.currency),
      b.forecast === null || b.forecast.readAt === null
        ? 'not read yet'
        : b.forecast.shortfall === null
          ? 'covered'
          : `short by ${localAmount(b.forecast.shortfall.value, b.totalAmount.currency)}`,
      b.name,
    ]);
    context.out(
      upcomingPaydays.length === 0 ? 'No batch is scheduled.' : table(['ID', 'PAYS AT', 'VALID ROWS', 'AMOUNT', 'FORECAST', 'NAME'], rows),
    );
    await context.result({
      batches: upcomingPaydays.map(({ totalAmount, forecast, ...rest }) => ({
        ...rest,
        currency: totalAmount.currency,
        totalAmount: totalAmount.value,
        forecastShortfall: forecast?.shortfall?.value ?? null,
        forecastReadAt: forecast?.readAt ?? null,
      })),
    });
    return exitCodes.ok;
  });
}
