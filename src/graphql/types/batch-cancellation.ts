import { cancelCodes, cancelledStatus } from '../../batch/index.ts';
import type { TrackedStatus } from '../../db/generated/enums.ts';
import { finalTracked, paymentStates } from '../../payments/status.ts';
import { builder } from '../builder.ts';
import type { GraphQLContext } from '../context.ts';
import { BatchItem } from './batch-item.ts';
import { TrackingStatusEnum } from './enums.ts';
import { Payment } from './payment.ts';

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
    resolve: async ({ tracked }, _args, context) =>
      tracked?.batchId != null && (await cancelledRows(context, tracked.paymentId)) === true,
  }),
);
