import type { Batch as BatchRow } from '../../../db/generated/client.ts';
import { minorUnitsOf, moneyObject } from '../../../money/money-wire.ts';
import { paymentStates } from '../../../payments/status.ts';
import { changedAccountRowsIncluded } from '../../../payees/held-for-changed-account.ts';
import { builder } from '../../builder.ts';
import { Money } from '../balance.ts';
import { Batch } from './batch.ts';

/**
 * What a batch pays and what it costs, apart from what its file holds: a re-uploaded payroll
 * counts all its rows valid, but its held rows are not paid, so adding up validCount or
 * totalAmount over the list counts those payments twice (issue 29, finding 3).
 */
const paysHeld = (b: BatchRow, asked: boolean | null | undefined) => asked ?? b.includeHeld;
const paysChanged = (b: BatchRow, asked: boolean | null | undefined) => asked ?? b.includeChangedAccounts;

const INCLUDE_HELD = 'Count the held rows as paid too, as approveBatch(includeHeld: true) does; left out: the batch’s own includeHeld.';
const INCLUDE_CHANGED =
  'Count the rows held for a changed account as paid too, as approveBatch(includeChangedAccounts: true) does; left out: the batch’s own includeChangedAccounts.';

builder.objectFields(Batch, (t) => ({
  payableCount: t.int({
    description:
      'Rows to pay (or paid): the valid rows less the held rows, unless includeHeld, and less those held for a changed account, unless includeChangedAccounts. What the approval confirmation counts.',
    args: {
      includeHeld: t.arg.boolean({ description: INCLUDE_HELD }),
      includeChangedAccounts: t.arg.boolean({ description: INCLUDE_CHANGED }),
    },
    resolve: (b, args) =>
      b.validCount -
      (paysHeld(b, args.includeHeld) ? 0 : b.heldCount) -
      (paysChanged(b, args.includeChangedAccounts) ? 0 : b.changedAccountCount),
  }),
  payableAmount: t.field({
    type: Money,
    description:
      'What the rows to pay add up to: totalAmount less heldAmount, unless includeHeld, and less changedAccountAmount, unless includeChangedAccounts. The sum to add up across batches.',
    args: {
      includeHeld: t.arg.boolean({ description: INCLUDE_HELD }),
      includeChangedAccounts: t.arg.boolean({ description: INCLUDE_CHANGED }),
    },
    resolve: (b, args) =>
      moneyObject(
        minorUnitsOf(b.totalAmount) -
          (paysHeld(b, args.includeHeld) ? 0n : minorUnitsOf(b.heldAmount)) -
          (paysChanged(b, args.includeChangedAccounts) ? 0n : minorUnitsOf(b.changedAccountAmount)),
        b.currency as 'RUB',
      ),
  }),
  changedAccountCount: t.exposeInt('changedAccountCount', {
    description:
      'Rows held because their payee’s account changed since the last payment to that payee (BatchItem.payeeMark ACCOUNT_CHANGED, status DUPLICATE); a row that also repeats a payment counts in heldCount instead, so the two add up. Never paid unless the approver includes them (includeChangedAccounts).',
  }),
  changedAccountAmount: t.field({
    type: Money,
    description: 'What the rows held for a changed account add up to.',
    resolve: (b) => moneyObject(b.changedAccountAmount, b.currency as 'RUB'),
  }),
  includeChangedAccounts: t.exposeBoolean('includeChangedAccounts', {
    description: 'The approver chose to pay the rows held for a changed account too.',
  }),
  changedAccountRowsIncluded: t.int({
    description:
      'Changed-account rows an approval pays: changedAccountCount when included, else 0. What an approval policy weighs ("changed-account rows included").',
    args: { includeChangedAccounts: t.arg.boolean({ description: INCLUDE_CHANGED }) },
    resolve: (b, args) => changedAccountRowsIncluded(b, paysChanged(b, args.includeChangedAccounts)),
  }),
  commissionEstimate: t.field({
    type: Money,
    description:
      'About what the partner will charge for the rows an approval would start (PENDING; with includeHeld also the held rows), at each provider\'s tariff: the estimate approval weighs against the balance, for a confirmation to quote ("plus about …"). See docs/decisions/0019-commission-estimate.md.',
    args: {
      includeHeld: t.arg.boolean({
        defaultValue: false,
        description: 'Count the held rows too, as approveBatch(includeHeld: true) pays them.',
      }),
    },
    resolve: async (b, args, { services }) =>
      moneyObject(await services.funds.commissionOf(b.id, args.includeHeld ?? false), b.currency as 'RUB'),
  }),
  commissionCharged: t.field({
    type: Money,
    description:
      'The commission the partner charged so far: the sum of Payment.commission over the batch’s COMPLETED payments (every attempt). 0.00 before any is paid.',
    resolve: async (b, _args, { services }) => {
      const sum = await services.prisma.payment.aggregate({
        where: { batchId: b.id, status: paymentStates.completed },
        _sum: { commission: true },
      });
      return moneyObject(sum._sum.commission ?? 0n, b.currency as 'RUB');
    },
  }),
}));
