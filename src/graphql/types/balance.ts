import type { Balance, Currency, Money as MoneyShape } from '../../payout/models.ts';
import { builder } from '../builder.ts';
import { CurrencyEnum } from './enums.ts';

export const Money = builder.objectRef<MoneyShape>('Money').implement({
  description: 'An amount and its currency.',
  fields: (t) => ({
    value: t.field({
      type: 'Decimal',
      description: 'The amount in currency units, two decimals (e.g. "1500.00"); may be negative only for a balance.',
      resolve: (money) => money.value,
    }),
    currency: t.field({ type: CurrencyEnum, description: 'The currency of value.', resolve: (money) => money.currency }),
  }),
});

/** Shared by the main balance and each account's, so both read the same way. */
const BalanceFields = builder.interfaceRef<Balance>('BalanceFields').implement({
  description: 'What an account holds, as the Payout API reports it when asked (not cached).',
  fields: (t) => ({
    balance: t.field({ type: Money, nullable: true, description: 'Current balance.', resolve: (b) => b.balance ?? null }),
    overdraft: t.field({
      type: Money,
      nullable: true,
      description: 'Allowed excess over the balance.',
      resolve: (b) => b.overdraft ?? null,
    }),
    available: t.field({ type: Money, description: 'Total that can be paid out now.', resolve: (b) => b.available }),
    updatedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the upstream last changed the balance; null when it does not say.',
      resolve: (b) => (b.updatedTime === undefined ? null : new Date(b.updatedTime)),
    }),
  }),
});

const BalanceType = builder.objectRef<Balance>('Balance').implement({
  description: 'The main account’s balance.',
  interfaces: [BalanceFields],
  isTypeOf: (value) => !('currency' in (value as object)),
  fields: () => ({}),
});

const AccountBalance = builder.objectRef<Balance & { currency: Currency }>('AccountBalance').implement({
  description: 'The balance of the account in one currency.',
  interfaces: [BalanceFields],
  isTypeOf: (value) => 'currency' in (value as object),
  fields: (t) => ({
    currency: t.field({ type: CurrencyEnum, description: 'The account’s currency.', resolve: (b) => b.currency }),
  }),
});

builder.queryFields((t) => ({
  balance: t.field({
    type: BalanceType,
    description: 'The main account balance.',
    authScopes: { read: true },
    resolve: (_root, _args, { services }) => services.client.getBalance(),
  }),
  balances: t.field({
    type: [AccountBalance],
    description: 'Every account, one per currency.',
    authScopes: { read: true },
    resolve: async (_root, _args, { services }) =>
      Object.entries(await services.client.getBalances()).map(([currency, balance]) => ({
        ...balance!,
        currency: currency as Currency,
      })),
  }),
}));
