import { cancelCodes, cancelledStatus } from '../../../batch/index.ts';
import { BatchItemStatus, type TrackedStatus } from '../../../db/generated/enums.ts';
import type { BatchItem as BatchItemRow } from '../../../db/generated/client.ts';
import { maskRecipientFields } from '../../../log/mask.ts';
import { moneyObject } from '../../../money/money-wire.ts';
import type { BillingDetails } from '../../../payout/models.ts';
import { finalTracked, paymentStates } from '../../../payments/status.ts';
import { builder } from '../../builder.ts';
import type { GraphQLContext } from '../../context.ts';
import { Money } from '../balance.ts';
import { ErrorCodeEnum, ProviderCodeEnum, TrackingStatusEnum, enumName } from '../enums.ts';
import { KeyValue, BillingDetailsType, Payment } from '../payment/payment.ts';
import { PayeeMarkType } from '../payee-mark.ts';

const batchItemStatusMeanings: Record<BatchItemStatus, string> = {
  PENDING: 'Valid, waiting for approval or for a worker.',
  CREATING: 'The create is being sent.',
  READY: 'Created upstream, about to be executed.',
  EXECUTING: 'The execute is being sent.',
  IN_PROGRESS: 'Executed; the provider is paying it.',
  COMPLETED: 'Final: paid.',
  FAILED: 'Not paid (see errorCode); retryFailedItems pays it again under a new paymentId.',
  EXPIRED: 'Not executed in time upstream; retryFailedItems pays it again.',
  CANCELLED: 'Not paid: its batch was cancelled, or a person marked it DO_NOT_PAY.',
  NEEDS_REVIEW: 'Its outcome could not be settled by reading back: never paid again automatically (reviewBatchItems, markBatchItem).',
  INVALID: 'Failed validation; never paid.',
  DUPLICATE:
    'Held: repeats a payment (same payee, amount and reference; repeats names it), paid only if the approver includes held rows (approveBatch includeHeld); or its payee’s account changed since the last payment (payeeMark ACCOUNT_CHANGED), paid only with approveBatch includeChangedAccounts. A row held for both needs both.',
};

export const BatchItemStatusEnum = builder.enumType('BatchItemStatus', {
  description:
    'Follows the row’s payment; NEEDS_REVIEW is an outcome reading back could not settle (never paid again automatically); INVALID rows failed validation; DUPLICATE rows are held: they repeat a payment (same payee, amount and reference) and are paid only if the approver includes held rows.',
  values: Object.fromEntries(
    Object.values(BatchItemStatus).map((s) => [s, { value: s, description: batchItemStatusMeanings[s] }]),
  ) as Record<BatchItemStatus, { value: BatchItemStatus; description: string }>,
});

type RepeatedRowShape = Pick<BatchItemRow, 'batchId' | 'line' | 'paymentId' | 'status' | 'finishedAt' | 'updatedAt'>;
const RepeatedRow = builder.objectRef<RepeatedRowShape>('RepeatedRow').implement({
  description: 'The row a held (DUPLICATE) row repeats, as it stands now.',
  fields: (t) => ({
    batchId: t.exposeID('batchId', { description: 'The batch of the earlier row.' }),
    line: t.exposeInt('line', { description: 'Its file line (the header is 1).' }),
    paymentId: t.exposeID('paymentId', { description: 'Its current payment.' }),
    status: t.field({ type: BatchItemStatusEnum, description: 'Its status now.', resolve: (r) => r.status }),
    at: t.field({
      type: 'DateTime',
      description: 'When it finished, or last changed while it is still paying.',
      resolve: (r) => r.finishedAt ?? r.updatedAt,
    }),
  }),
});

export const BatchItem = builder.node(builder.objectRef<BatchItemRow>('BatchItem'), {
  description: 'One row of a batch’s file: the same row through every attempt (its paymentId changes with each).',
  // A row is its batch and line: the paymentId is replaced when the row is paid again.
  id: { resolve: (i) => `${i.batchId}:${i.line}` },
  loadOne: (key, { services }) => {
    const colon = key.lastIndexOf(':');
    const line = Number(key.slice(colon + 1));
    if (colon < 1 || !Number.isSafeInteger(line)) return null;
    return services.prisma.batchItem.findFirst({ where: { batchId: key.slice(0, colon), line } });
  },
  authScopes: { read: true },
  runScopesOnType: true,
  fields: (t) => ({
    batchId: t.exposeID('batchId', { description: 'The batch (its id).' }),
    line: t.exposeInt('line', { description: 'The row’s file line (the header is 1).' }),
    reference: t.string({
      nullable: true,
      description: 'The payer’s reference from the file; null when the file has none.',
      resolve: (i) => i.reference,
    }),
    paymentId: t.exposeID('paymentId', { description: 'The payment of the current attempt (a new one each time the row is paid again).' }),
    attempt: t.exposeInt('attempt', { description: '1, then 2, 3 … each time failed rows are paid again.' }),
    status: t.field({ type: BatchItemStatusEnum, description: 'Where the row is.', resolve: (i) => i.status }),
    provider: t.field({ type: ProviderCodeEnum, description: 'The provider it is paid through.', resolve: (i) => i.providerCode as never }),
    amount: t.field({
      type: Money,
      description: 'What the row pays.',
      resolve: (i) => moneyObject(i.amount, i.currency as 'RUB'),
    }),
    recipient: t.field({
      type: [KeyValue],
      description: 'Card numbers and accounts masked.',
      resolve: (i) => Object.entries(maskRecipientFields(i.fields as Record<string, string>)).map(([key, value]) => ({ key, value })),
    }),
    errorCode: t.string({
      nullable: true,
      description:
        'Why it failed or is held: an upstream code (e.g. INSUFFICIENT_FUNDS, payout.billing.declined) or the gateway’s (batch.…, review.…); open-ended. Null when nothing went wrong.',
      resolve: (i) => i.errorCode,
    }),
    errorMessage: t.string({
      nullable: true,
      description: 'The error in words; null when nothing went wrong.',
      resolve: (i) => i.errorMessage,
    }),
    billingDetails: t.field({
      type: BillingDetailsType,
      nullable: true,
      description: 'What the recipient’s side reported; null until it reports.',
      resolve: (i) => (i.billingDetails as BillingDetails | null) ?? null,
    }),
    payee: t.string({
      nullable: true,
      description: 'The company’s id of the person paid (the file’s payee column); null when the file has none.',
      resolve: (i) => i.payeeId,
    }),
    payeeMark: t.field({
      type: PayeeMarkType,
      nullable: true,
      description:
        'For a row with a payee: new payee, account changed since the last payment (held), or known, as found at import. Null for a row without a payee.',
      resolve: (i) => (i.payeeMark === null ? null : { kind: i.payeeMark, lastPaidAt: i.payeeLastPaidAt }),
    }),
    retries: t.exposeInt('retries', { description: 'Transient failures retried so far.' }),
    updatedAt: t.field({ type: 'DateTime', description: 'When the row last changed.', resolve: (i) => i.updatedAt }),
    repeats: t.field({
      type: RepeatedRow,
      nullable: true,
      description:
        'For a held row (DUPLICATE, or held and then included by the approver): the earlier row (of this file or of an approved batch) with the same payee, amount and reference; null for a row never held.',
      resolve: (i, _args, { services }) =>
        i.repeatsPaymentId === null
          ? null
          : services.prisma.batchItem.findUnique({
              where: { paymentId: i.repeatsPaymentId },
              select: { batchId: true, line: true, paymentId: true, status: true, finishedAt: true, updatedAt: true },
            }),
    }),
  }),
});

/**
 * A batch row cancelled after its create took effect (batch.cancelled-after-create): its
 * payment is READY upstream, never executed by the gateway, until it expires there. The
 * row and the payment say so; a page of either costs one query, not one per row.
 */
interface CreatedNotExecuted {
  paymentId: string;
  expiresAt: Date | null;
  status: TrackedStatus;
}

/** Collects the keys asked for in one pass of a list, then loads them in one query (per request). */
function batching<V>(load: (context: GraphQLContext, keys: string[]) => Promise<Map<string, V>>) {
  const pending = new WeakMap<GraphQLContext, Map<string, Array<(value: V | undefined) => void>>>();
  return (context: GraphQLContext, key: string): Promise<V | undefined> =>
    new Promise((resolve, reject) => {
      let waiting = pending.get(context);
      if (waiting === undefined) {
        const batch = new Map<string, Array<(value: V | undefined) => void>>();
        waiting = batch;
        pending.set(context, batch);
        // Sibling rows' resolvers all run before the first microtask: one query for the page.
        queueMicrotask(() => {
          pending.delete(context);
          load(context, [...batch.keys()]).then(
            (values) => batch.forEach((resolvers, k) => resolvers.forEach((done) => done(values.get(k)))),
            reject,
          );
        });
      }
      waiting.set(key, [...(waiting.get(key) ?? []), resolve]);
    });
}

const paymentsOfRows = batching<CreatedNotExecuted>(async ({ services }, paymentIds) => {
  const rows = await services.prisma.payment.findMany({
    where: { paymentId: { in: paymentIds } },
    select: { paymentId: true, expiresAt: true, status: true },
  });
  return new Map(rows.map((row) => [row.paymentId, row]));
});

const cancelledRows = batching<true>(async ({ services }, paymentIds) => {
  const cancelled = await services.tracker.cancelledBatchPayments(paymentIds);
  return new Map([...cancelled].map((paymentId) => [paymentId, true as const]));
});

const CancelledAfterCreate = builder.objectRef<CreatedNotExecuted>('CancelledAfterCreate').implement({
  description: 'A payment created upstream for a row whose batch was then cancelled: not executed, and the gateway refuses to execute it.',
  fields: (t) => ({
    expiresAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the upstream lets it expire (its expirationDateTime).',
      resolve: (c) => c.expiresAt,
    }),
    openUpstream: t.boolean({
      description: 'Still READY upstream as far as the gateway knows: not final and not past its expiry.',
      resolve: (c) => !finalTracked.has(c.status) && (c.expiresAt === null || c.expiresAt.getTime() > Date.now()),
    }),
    paymentStatus: t.field({ type: TrackingStatusEnum, description: 'The gateway’s record of the payment.', resolve: (c) => c.status }),
  }),
});

builder.objectField(BatchItem, 'cancelledAfterCreate', (t) =>
  t.field({
    type: CancelledAfterCreate,
    nullable: true,
    description: 'Set when the batch was cancelled after this row’s payment was created upstream (errorCode batch.cancelled-after-create).',
    resolve: async (item, _args, context) => {
      if (item.status !== cancelledStatus || item.errorCode !== cancelCodes.afterCreate) return null;
      return (await paymentsOfRows(context, item.paymentId)) ?? { paymentId: item.paymentId, expiresAt: null, status: paymentStates.ready };
    },
  }),
);

builder.objectField(Payment, 'batchCancelled', (t) =>
  t.boolean({
    description: 'Its batch row was cancelled: the gateway will not execute it (executePayment answers PAYMENT_CANCELLED).',
    resolve: async ({ tracked }, _args, context) => tracked?.batchId != null && (await cancelledRows(context, tracked.paymentId)) === true,
  }),
);
