import { PayeeMark } from '../../../db/generated/enums.ts';
import { builder } from '../../builder.ts';
import { Batch } from './batch.ts';

interface PayeeMarkCountsShape {
  newPayees: number;
  changedAccounts: number;
  knownPayees: number;
  changedSince: Date | null;
}

const PayeeMarkCounts = builder.objectRef<PayeeMarkCountsShape>('PayeeMarkCounts').implement({
  description: 'How the rows with a payee were marked at import (BatchItem.payeeMark); rows without a payee are not counted.',
  fields: (t) => ({
    newPayees: t.exposeInt('newPayees', { description: 'Rows whose payee the gateway never paid.' }),
    changedAccounts: t.exposeInt('changedAccounts', {
      description: 'Rows whose payee was last paid to another account (held, those that also repeat a payment included).',
    }),
    knownPayees: t.exposeInt('knownPayees', { description: 'Rows paying a payee to the account it was last paid to.' }),
    changedSince: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'The earliest last payment among the changed accounts: "account changed since …". Null when none changed.',
      resolve: (c) => c.changedSince,
    }),
  }),
});

builder.objectFields(Batch, (t) => ({
  payeeMarks: t.field({
    type: PayeeMarkCounts,
    description:
      'The marks of the rows with a payee, counted: what the CLI’s and the page’s summaries say ("3 new payees, 1 account changed since 27 Oct (held)").',
    resolve: async (b, _args, { services }) => {
      const groups = await services.prisma.batchItem.groupBy({
        by: ['payeeMark'],
        where: { batchId: b.id, payeeMark: { not: null } },
        _count: { _all: true },
        _min: { payeeLastPaidAt: true },
      });
      const of = (mark: PayeeMark) => groups.find((g) => g.payeeMark === mark);
      return {
        newPayees: of(PayeeMark.NEW_PAYEE)?._count._all ?? 0,
        changedAccounts: of(PayeeMark.ACCOUNT_CHANGED)?._count._all ?? 0,
        knownPayees: of(PayeeMark.KNOWN)?._count._all ?? 0,
        changedSince: of(PayeeMark.ACCOUNT_CHANGED)?._min.payeeLastPaidAt ?? null,
      };
    },
  }),
}));
