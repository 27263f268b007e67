import { PayeeMark } from '../../db/generated/enums.ts';
import { builder } from '../builder.ts';

const payeeMarkMeanings: Record<PayeeMark, string> = {
  NEW_PAYEE: 'The gateway never paid this payee.',
  ACCOUNT_CHANGED:
    'This payee was last paid (lastPaidAt) to another account: a row is held until the approver includes it (approveBatch includeChangedAccounts), a single payment is executed only with executePayment includeChangedAccount.',
  KNOWN: 'Paid before (lastPaidAt) to this same account.',
};

export const PayeeMarkKindEnum = builder.enumType('PayeeMarkKind', {
  description:
    'What the gateway found about a row’s payee at import, or a single payment’s at create, against the account that payee was last paid to (by keyed fingerprint: never a card number).',
  values: Object.fromEntries(Object.values(PayeeMark).map((m) => [m, { value: m, description: payeeMarkMeanings[m] }])) as Record<
    PayeeMark,
    { value: PayeeMark; description: string }
  >,
});

export interface PayeeMarkShape {
  kind: PayeeMark;
  lastPaidAt: Date | null;
}

/** BatchItem.payeeMark and Payment.payeeMark: one type for both. */
export const PayeeMarkType = builder.objectRef<PayeeMarkShape>('PayeeMark').implement({
  description: 'A row’s or payment’s payee mark: new payee, account changed since the last payment, or known.',
  fields: (t) => ({
    kind: t.field({ type: PayeeMarkKindEnum, description: 'New payee, account changed, or known.', resolve: (m) => m.kind }),
    lastPaidAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When this payee was last paid (ACCOUNT_CHANGED and KNOWN); null for a new payee.',
      resolve: (m) => m.lastPaidAt,
    }),
  }),
});
