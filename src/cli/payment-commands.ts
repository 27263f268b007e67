import { localAmount } from '../money/money-text.ts';
import { timeText } from './batch/words.ts';
import { withGateway } from './batch/gateway-commands.ts';
import { CliError, exitCodes } from './cli-error.ts';
import type { CliContext } from './context.ts';
import { table } from './output.ts';

const PAYMENT_FIELDS = `paymentId status trackingStatus amount { value currency } commission { value } provider reference batchId batchRow
  createdAt statusChangedAt errorCode upstreamErrorCode errorMessage trackingErrorCode tracked batchCancelled recipient { key value }`;
/** payment get only: search reads the records alone, never the partner. */
const FRESHNESS_FIELDS = 'freshness { source readAt liveReadErrorCode liveReadError }';

/** Whether `payment get` shows the partner's answer of now (LIVE) or the gateway's record, as of when and why. */
interface Freshness {
  source: 'LIVE' | 'RECORDED';
  readAt: string;
  liveReadErrorCode: string | null;
  liveReadError: string | null;
}

interface PaymentView {
  paymentId: string;
  status: string | null;
  trackingStatus: string | null;
  amount: { value: string; currency: string };
  commission: { value: string } | null;
  provider: string;
  reference: string | null;
  batchId: string | null;
  batchRow: number | null;
  createdAt: string;
  statusChangedAt: string | null;
  errorCode: string | null;
  upstreamErrorCode: string | null;
  errorMessage: string | null;
  trackingErrorCode: string | null;
  tracked: boolean;
  batchCancelled: boolean;
  recipient: Array<{ key: string; value: string }>;
  freshness?: Freshness;
}

/** A payment as --json gives it: amounts as decimal strings, times ISO 8601, the recipient masked as the gateway gives it. */
function paymentDoc({ amount, commission, recipient, freshness, ...rest }: PaymentView): Record<string, unknown> {
  const doc = {
    ...rest,
    amount: amount.value,
    currency: amount.currency,
    commission: commission?.value ?? null,
    recipient: Object.fromEntries(recipient.map((f) => [f.key, f.value])),
  };
  // payment get: LIVE (the partner's answer, readAt) or RECORDED (the record as of readAt; liveReadError says why).
  return freshness === undefined
    ? doc
    : {
        ...doc,
        source: freshness.source,
        readAt: freshness.readAt,
        liveReadErrorCode: freshness.liveReadErrorCode,
        liveReadError: freshness.liveReadError,
      };
}

/** `payout payment get ID` (GraphQL payment): read from the upstream now and merged with the gateway's record. */
export async function paymentGetCommand(paymentId: string, context: CliContext): Promise<number> {
  return withGateway(context, async (client) => {
    const { payment } = await client.graphql<{ payment: PaymentView | null }>(
      `query CliPayment($id: ID!) { payment(paymentId: $id) { ${PAYMENT_FIELDS} ${FRESHNESS_FIELDS} } }`,
      { id: paymentId },
    );
    if (payment === null) throw new CliError(`no payment ${paymentId}`, exitCodes.usage, 'payment.not-found');
    const status = payment.status ?? payment.trackingStatus ?? 'unknown';
    const lines = [
      `Payment ${payment.paymentId}: ${status}, ${localAmount(payment.amount.value, payment.amount.currency)}${payment.commission === null ? '' : ` plus ${localAmount(payment.commission.value, payment.amount.currency)} commission`}, ${providerCode(payment.provider)}.`,
      `created ${timeText(payment.createdAt)}${payment.statusChangedAt === null ? '' : `, status since ${timeText(payment.statusChangedAt)}`}`,
      payment.batchId === null
        ? null
        : `batch ${payment.batchId}, line ${payment.batchRow ?? '?'}${payment.reference === null ? '' : `, reference ${payment.reference}`}: payout batch status ${payment.batchId}`,
      payment.errorCode === null && payment.upstreamErrorCode === null
        ? null
        : `why: ${payment.errorCode ?? payment.upstreamErrorCode}${payment.errorMessage === null ? '' : ` (${payment.errorMessage})`}`,
      payment.recipient.length === 0 ? null : `recipient: ${payment.recipient.map((f) => `${f.key}=${f.value}`).join(', ')}`,
      payment.tracked ? null : 'The gateway has no record of it: it was made elsewhere with the same credentials.',
      // Said, not left for the reader to guess: during an outage the status is the record's, not the partner's (issue 38).
      payment.freshness?.liveReadErrorCode == null
        ? null
        : `The Payout API gave no answer about it just now (${payment.freshness.liveReadError ?? payment.freshness.liveReadErrorCode}): this is the gateway's record as of ${timeText(payment.freshness.readAt)}.`,
    ];
    context.out(lines.filter((line) => line !== null).join('\n'));
    await context.result({ payment: paymentDoc(payment) });
    return exitCodes.ok;
  });
}

export interface SearchOptions {
  reference?: string;
  status?: string;
  batch?: string;
  from?: string;
  to?: string;
  limit?: number;
}

/** `payout payment search` (GraphQL searchPayments): the gateway's own records, newest first; the filters combine. */
export async function paymentSearchCommand(options: SearchOptions, context: CliContext): Promise<number> {
  const first = options.limit ?? 20;
  return withGateway(context, async (client) => {
    const { found } = await client.graphql<{ found: { edges: Array<{ node: PaymentView }>; pageInfo: { hasNextPage: boolean } } }>(
      `query CliSearch($first: Int, $reference: String, $status: TrackingStatus, $batchId: ID, $from: Date, $to: Date) {
        found: searchPayments(first: $first, reference: $reference, status: $status, batchId: $batchId, from: $from, to: $to) {
          edges { node { ${PAYMENT_FIELDS} } } pageInfo { hasNextPage } } }`,
      {
        first,
        reference: options.reference ?? null,
        status: options.status ?? null,
        batchId: options.batch ?? null,
        from: options.from ?? null,
        to: options.to ?? null,
      },
    );
    const payments = found.edges.map((edge) => edge.node);
    const rows = payments.map((p) => [
      p.paymentId,
      p.trackingStatus ?? p.status ?? '',
      localAmount(p.amount.value, p.amount.currency),
      timeText(p.createdAt),
      p.batchId === null ? '' : `${p.batchId}:${p.batchRow ?? ''}`,
      p.reference ?? '',
    ]);
    context.out(
      payments.length === 0 ? 'No payments match.' : table(['PAYMENT', 'STATUS', 'AMOUNT', 'CREATED AT', 'BATCH ROW', 'REFERENCE'], rows),
    );
    if (found.pageInfo.hasNextPage) context.out(`… more: payout payment search --limit ${Math.min(99, first * 2)}`);
    await context.result({ payments: payments.map(paymentDoc), more: found.pageInfo.hasNextPage });
    return exitCodes.ok;
  });
}

/** The provider as the files, the templates and every other command write it (sbp-b2c), not GraphQL's enum name (SBP_B2C): issue 38. */
export function providerCode(enumName: string): string {
  return enumName.toLowerCase().replace(/_/g, '-');
}
