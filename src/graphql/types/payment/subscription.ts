import { finalTracked } from '../../../payments/status.ts';
import { followState } from '../../../events/subscription.ts';
import { builder } from '../../builder.ts';
import { Payment } from './payment.ts';

builder.subscriptionFields((t) => ({
  paymentUpdated: t.field({
    type: Payment,
    // Changes from any gateway or worker process reach here (src/events); the stream ends
    // after a final status (COMPLETED, FAILED, EXPIRED) has been sent.
    description: 'The payment as it stands now, then again on each status change (from webhooks, reads, read-backs or a reconciliation).',
    authScopes: { read: true },
    args: { paymentId: t.arg.id({ required: true, description: 'The payment’s own id (Payment.paymentId).' }) },
    subscribe: (_root, { paymentId }, { services }) => {
      const id = String(paymentId);
      return followState(services.events.subscribe(id), {
        read: async () => ({ paymentId: id, tracked: (await services.tracker.find(id)) ?? undefined }),
        isFinal: ({ tracked }) => tracked !== undefined && finalTracked.has(tracked.status),
        same: (a, b) => a.tracked?.status === b.tracked?.status,
        until: services.shutdown,
      });
    },
    resolve: (payment) => payment,
  }),
}));
