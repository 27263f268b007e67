import type { Limit, Parameter } from '../../payout/models.ts';
import type { ProviderDetails } from '../../payments/provider-catalogue.ts';
import { builder } from '../builder.ts';
import { CurrencyEnum, ProviderCodeEnum } from './enums.ts';

const AmountLimit = builder.objectRef<Limit & { currency: 'RUB' }>('AmountLimit').implement({
  description: 'Allowed amounts in one currency; both ends inclusive.',
  fields: (t) => ({
    currency: t.field({ type: CurrencyEnum, resolve: (l) => l.currency }),
    min: t.field({ type: 'Decimal', resolve: (l) => l.min }),
    max: t.field({ type: 'Decimal', resolve: (l) => l.max }),
  }),
});

const ProviderParameter = builder.objectRef<Parameter>('ProviderParameter').implement({
  description: 'A recipient field the provider reads.',
  fields: (t) => ({
    name: t.exposeString('extKey', { description: 'The field name as the Payout API spells it (pan, bankId, …).' }),
    required: t.exposeBoolean('required'),
    description: t.exposeString('description'),
    validationPattern: t.string({ nullable: true, resolve: (p) => p.validationPattern ?? null }),
  }),
});

const Contacts = builder.objectRef<{ address?: string; phoneNumber?: string }>('ProviderContacts').implement({
  fields: (t) => ({
    address: t.string({ nullable: true, resolve: (c) => c.address ?? null }),
    phoneNumber: t.string({ nullable: true, resolve: (c) => c.phoneNumber ?? null }),
  }),
});

// A Node rather than a plain `id`: Relay's store keys every record by `id` alone, so an
// `id` that is only a provider code could collide with another type's; as a Node it is
// unique, refetchable, and Apollo normalises it like every other object.
const Provider = builder.node(builder.objectRef<ProviderDetails>('Provider'), {
  id: { resolve: (p) => p.code },
  loadOne: async (code, { services }) => (await services.catalogue.get(code as ProviderDetails['code'])) ?? null,
  authScopes: { read: true },
  runScopesOnType: true,
  fields: (t) => ({
    code: t.field({ type: ProviderCodeEnum, resolve: (p) => p.code }),
    name: t.exposeString('name'),
    legalName: t.string({ resolve: (p) => p.info.legalName }),
    inn: t.string({ nullable: true, description: 'Tax identifier.', resolve: (p) => p.info.inn ?? null }),
    contacts: t.field({ type: Contacts, nullable: true, resolve: (p) => p.info.contactDetails ?? null }),
    limits: t.field({
      type: [AmountLimit],
      resolve: (p) =>
        Object.entries(p.info.amountLimits).map(([currency, limit]) => ({ ...limit!, currency: currency as 'RUB' })),
    }),
    parameters: t.field({ type: [ProviderParameter], resolve: (p) => p.info.parameters }),
  }),
});

builder.queryFields((t) => ({
  providers: t.field({
    type: [Provider],
    description: 'Every provider with its limits and recipient fields, cached for PROVIDER_CACHE_TTL_MS.',
    authScopes: { read: true },
    resolve: (_root, _args, { services }) => services.catalogue.all(),
  }),
  provider: t.field({
    type: Provider,
    nullable: true,
    args: { code: t.arg({ type: ProviderCodeEnum, required: true }) },
    authScopes: { read: true },
    resolve: async (_root, { code }, { services }) => (await services.catalogue.get(code)) ?? null,
  }),
}));
