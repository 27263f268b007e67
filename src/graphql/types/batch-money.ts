import type { Batch as BatchRow } from '../../db/generated/client.ts';
import { fromMinorUnits } from '../../money/money.ts';
import { paymentStates } from '../../payments/status.ts';
import { builder } from '../builder.ts';
import { Money } from './balance.ts';
import { Batch } from './batch.ts';

/**
 * What a batch pays and what it costs, apart from what its file holds: a re-uploaded payroll
 * counts all its rows valid, but its held rows are not paid, so adding up validCount or
 * totalAmount over the list counts those payments twice (issue 29, finding 3).
 */
const paysHeld = (b: BatchRow, asked: boolean | null | undefined) => asked ?? b.includeHeld;

const INCLUDE_HELD = 'Count the held rows as paid too, as approveBatch(includeHeld: true) does; left out: the batch’s own includeHeld.';

builder.objectFields(Batch, (t) => ({
  payableCount: t.int({
    description: 'Rows to pay (or paid): the valid rows less the held rows, unless includeHeld. What the approval confirmation counts.',
    args: { includeHeld: t.arg.boolean({ description: INCLUDE_HELD }) },
    resolve: (b, args) => (paysHeld(b, args.includeHeld) ? b.validCount : b.validCount - b.heldCount),
  }),
  payableAmount: t.field({
    type: Money,
    description: 'What the rows to pay add up to: totalAmount less heldAmount, unless includeHeld. The sum to add up across batches.',
    args: { includeHeld: t.arg.boolean({ description: INCLUDE_HELD }) },
    resolve: (b, args) => ({
      value: (paysHeld(b, args.includeHeld) ? b.totalAmount : b.totalAmount.minus(b.heldAmount)).toFixed(2),
      currency: b.currency as 'RUB',
    }),
  }),
  commissionEstimate: t.field({
    type: Money,
    description:
      'About what the partner will charge for the rows an approval would start (PENDING; with includeHeld also the held rows), at each provider\'s tariff: the estimate approval weighs against the balance, for a confirmation to quote ("plus about …"). See docs/decisions/0019-commission-estimate.md.',
    args: { includeHeld: t.arg.boolean({ defaultValue: false, description: 'Count the held rows too, as approveBatch(includeHeld: true) pays them.' }) },
    resolve: async (b, args, { services }) => ({
      value: fromMinorUnits(await services.funds.commissionOf(b.id, args.includeHeld ?? false)),
      currency: b.currency as 'RUB',
    }),
  }),
  commissionCharged: t.field({
    type: Money,
    description: 'The commission the partner charged so far: the sum of Payment.commission over the batch’s COMPLETED payments (every attempt). 0.00 before any is paid.',
    resolve: async (b, _args, { services }) => {
      const sum = await services.prisma.payment.aggregate({ where: { batchId: b.id, status: paymentStates.completed }, _sum: { commission: true } });
      return { value: sum._sum.commission?.toFixed(2) ?? '0.00', currency: b.currency as 'RUB' };
    },
  }),
}));
