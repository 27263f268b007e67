import { startWith } from '../../events/subscription.ts';
import { builder } from '../builder.ts';
import { Payment } from './payment.ts';

builder.subscriptionFields((t) => ({
  paymentUpdated: t.field({
    type: Payment,
    description: 'The payment as it stands now, then again on each status change (from webhooks, reads or reconciliation).',
    authScopes: { read: true },
    args: { paymentId: t.arg.id({ required: true }) },
    subscribe: (_root, { paymentId }, { services }) =>
      startWith({ paymentId: String(paymentId), status: 'current' }, services.events.subscribe(String(paymentId))),
    resolve: async (_change, { paymentId }, { services }) => ({
      paymentId: String(paymentId),
      tracked: (await services.tracker.find(String(paymentId))) ?? undefined,
    }),
  }),
}));
