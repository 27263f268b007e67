import type { Limit, Parameter } from '../../payout/models.ts';
import type { ProviderDetails } from '../../payments/provider-catalogue.ts';
import { builder } from '../builder.ts';
import { CurrencyEnum, ProviderCodeEnum } from './enums.ts';

const AmountLimit = builder.objectRef<Limit & { currency: 'RUB' }>('AmountLimit').implement({
  description: 'Allowed amounts in one currency; both ends inclusive.',
  fields: (t) => ({
    currency: t.field({ type: CurrencyEnum, description: 'The currency of min and max.', resolve: (l) => l.currency }),
    min: t.field({ type: 'Decimal', description: 'Smallest amount of one payment.', resolve: (l) => l.min }),
    max: t.field({ type: 'Decimal', description: 'Largest amount of one payment.', resolve: (l) => l.max }),
  }),
});

const ProviderParameter = builder.objectRef<Parameter>('ProviderParameter').implement({
  description: 'A recipient field the provider reads.',
  fields: (t) => ({
    name: t.exposeString('extKey', { description: 'The field name as the Payout API spells it (pan, bankId, …).' }),
    required: t.exposeBoolean('required', { description: 'A payment to this provider must carry it.' }),
    description: t.exposeString('description', { description: 'What the field holds, in the provider’s words.' }),
    validationPattern: t.string({
      nullable: true,
      description: 'A regular expression the value must match; null when the provider gives none.',
      resolve: (p) => p.validationPattern ?? null,
    }),
  }),
});

const Contacts = builder.objectRef<{ address?: string; phoneNumber?: string }>('ProviderContacts').implement({
  description: 'How to reach the provider, as the Payout API lists it.',
  fields: (t) => ({
    address: t.string({ nullable: true, description: 'Postal address; null when not given.', resolve: (c) => c.address ?? null }),
    phoneNumber: t.string({ nullable: true, description: 'Phone number; null when not given.', resolve: (c) => c.phoneNumber ?? null }),
  }),
});

// A Node rather than a plain `id`: Relay's store keys every record by `id` alone, so an
// `id` that is only a provider code could collide with another type's; as a Node it is
// unique, refetchable, and Apollo normalises it like every other object.
const Provider = builder.node(builder.objectRef<ProviderDetails>('Provider'), {
  description: 'A way to pay out (a card scheme, the fast payment system), with its limits and the recipient fields it reads. Any key.',
  id: { resolve: (p) => p.code },
  loadOne: async (code, { services }) => (await services.catalogue.get(code as ProviderDetails['code'])) ?? null,
  authScopes: { read: true },
  runScopesOnType: true,
  fields: (t) => ({
    code: t.field({
      type: ProviderCodeEnum,
      description: 'The provider’s code, as `recipient` and `provider(code:)` name it.',
      resolve: (p) => p.code,
    }),
    name: t.exposeString('name', { description: 'Display name.' }),
    legalName: t.string({ description: 'The legal entity that pays.', resolve: (p) => p.info.legalName }),
    inn: t.string({ nullable: true, description: 'Tax identifier.', resolve: (p) => p.info.inn ?? null }),
    contacts: t.field({
      type: Contacts,
      nullable: true,
      description: 'Null when the upstream gives none.',
      resolve: (p) => p.info.contactDetails ?? null,
    }),
    limits: t.field({
      type: [AmountLimit],
      description: 'Amounts one payment may have, per currency; createPayment checks them first.',
      resolve: (p) => Object.entries(p.info.amountLimits).map(([currency, limit]) => ({ ...limit!, currency: currency as 'RUB' })),
    }),
    parameters: t.field({
      type: [ProviderParameter],
      description: 'The recipient fields it reads (the matching RecipientInput member has the same fields).',
      resolve: (p) => p.info.parameters,
    }),
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
    description: 'One provider, from the same cache as providers; null when the upstream does not list it.',
    args: { code: t.arg({ type: ProviderCodeEnum, required: true, description: 'The provider’s code.' }) },
    authScopes: { read: true },
    resolve: async (_root, { code }, { services }) => (await services.catalogue.get(code)) ?? null,
  }),
}));
