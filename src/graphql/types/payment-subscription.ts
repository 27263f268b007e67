import { builder } from '../builder.ts';
import { Payment } from './payment.ts';

builder.subscriptionFields((t) => ({
  paymentUpdated: t.field({
    type: Payment,
    description: 'Each status change of the payment, from webhooks, reads or reconciliation.',
    authScopes: { read: true },
    args: { paymentId: t.arg.id({ required: true }) },
    subscribe: (_root, { paymentId }, { services }) => services.events.subscribe(String(paymentId)),
    resolve: async (_change, { paymentId }, { services }) => ({
      paymentId: String(paymentId),
      tracked: (await services.tracker.find(String(paymentId))) ?? undefined,
    }),
  }),
}));
