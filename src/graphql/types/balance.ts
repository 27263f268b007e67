import type { Balance, Currency, Money as MoneyShape } from '../../payout/models.ts';
import { builder } from '../builder.ts';
import { CurrencyEnum } from './enums.ts';

export const Money = builder.objectRef<MoneyShape>('Money').implement({
  fields: (t) => ({
    value: t.field({ type: 'Decimal', resolve: (money) => money.value }),
    currency: t.field({ type: CurrencyEnum, resolve: (money) => money.currency }),
  }),
});

/** Shared by the main balance and each account's, so both read the same way. */
const BalanceFields = builder.interfaceRef<Balance>('BalanceFields').implement({
  fields: (t) => ({
    balance: t.field({ type: Money, nullable: true, description: 'Current balance.', resolve: (b) => b.balance ?? null }),
    overdraft: t.field({ type: Money, nullable: true, description: 'Allowed excess over the balance.', resolve: (b) => b.overdraft ?? null }),
    available: t.field({ type: Money, description: 'Total that can be paid out now.', resolve: (b) => b.available }),
    updatedAt: t.field({
      type: 'DateTime',
      nullable: true,
      resolve: (b) => (b.updatedTime === undefined ? null : new Date(b.updatedTime)),
    }),
  }),
});

const BalanceType = builder.objectRef<Balance>('Balance').implement({
  interfaces: [BalanceFields],
  isTypeOf: (value) => !('currency' in (value as object)),
  fields: () => ({}),
});

const AccountBalance = builder.objectRef<Balance & { currency: Currency }>('AccountBalance').implement({
  interfaces: [BalanceFields],
  isTypeOf: (value) => 'currency' in (value as object),
  fields: (t) => ({
    currency: t.field({ type: CurrencyEnum, resolve: (b) => b.currency }),
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
