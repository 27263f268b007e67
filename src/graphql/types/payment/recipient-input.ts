import type { ProviderCode } from '../../../payout/models.ts';
import { builder } from '../../builder.ts';

interface MemberField {
  /** The upstream field name (recipientDetails.fields key). */
  key: string;
  required: boolean;
  description: string;
}

/**
 * One input member per provider, with exactly that provider's recipient fields (spec:
 * "Recipient fields per provider"). GraphQL names are the spec's, camel-cased.
 */
export const recipientMembers: Record<string, { provider: ProviderCode; fields: Record<string, MemberField> }> = {
  bankCardRussia: {
    provider: 'bank-card-russia',
    fields: {
      pan: { key: 'pan', required: true, description: 'Card number' },
      cardholderName: { key: 'cardholder_name', required: false, description: 'Cardholder first name' },
      cardholderLastname: { key: 'cardholder_lastname', required: false, description: 'Cardholder last name' },
      description: { key: 'description', required: false, description: 'Payment description' },
    },
  },
  bankCardRussiaFio: {
    provider: 'bank-card-russia-fio',
    fields: {
      pan: { key: 'pan', required: true, description: 'Card number' },
      lastName: { key: 'lastName', required: true, description: 'Recipient last name' },
      firstName: { key: 'firstName', required: true, description: 'Recipient first name' },
      middleName: { key: 'middleName', required: false, description: 'Recipient middle name' },
      description: { key: 'description', required: false, description: 'Payment description' },
    },
  },
  bankCardRussiaGph: {
    provider: 'bank-card-russia-gph',
    fields: {
      pan: { key: 'pan', required: true, description: 'Card number' },
      lastName: { key: 'lastName', required: true, description: 'Recipient last name' },
      firstName: { key: 'firstName', required: true, description: 'Recipient first name' },
      purpose: { key: 'purpose', required: true, description: 'Purpose of the service provided' },
      middleName: { key: 'middleName', required: false, description: 'Recipient middle name' },
    },
  },
  bankCardToken: {
    provider: 'bank-card-token',
    fields: {
      account: { key: 'account', required: true, description: 'Card token' },
      cardholderName: { key: 'cardholder_name', required: false, description: 'Cardholder first name' },
      cardholderLastname: { key: 'cardholder_lastname', required: false, description: 'Cardholder last name' },
      description: { key: 'description', required: false, description: 'Payment description' },
    },
  },
  sbpB2c: {
    provider: 'sbp-b2c',
    fields: {
      account: { key: 'account', required: true, description: 'Phone in international format without +' },
      bankId: { key: 'bankId', required: true, description: 'Recipient bank in the fast payment system' },
      description: { key: 'description', required: false, description: 'Payment description' },
    },
  },
  sbpFio: {
    provider: 'sbp-fio',
    fields: {
      account: { key: 'account', required: true, description: 'Phone in international format without +' },
      bankId: { key: 'bankId', required: true, description: 'Recipient bank in the fast payment system' },
      lastName: { key: 'lastName', required: true, description: 'Recipient last name' },
      firstName: { key: 'firstName', required: true, description: 'Recipient first name' },
      middleName: { key: 'middleName', required: false, description: 'Recipient middle name' },
      description: { key: 'description', required: false, description: 'Payment description' },
    },
  },
};

const pascal = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

const memberInputs = Object.fromEntries(
  Object.entries(recipientMembers).map(([member, { provider, fields }]) => [
    member,
    builder.inputType(`${pascal(member)}Recipient`, {
      description: `Recipient for provider ${provider}.`,
      fields: (t) =>
        Object.fromEntries(
          Object.entries(fields).map(([name, field]) => [
            name,
            // No length cap of its own: the provider's live pattern is the limit applied
            // (check-payment.ts), and quoted once; the request body limit bounds the text.
            t.string({ required: field.required, description: field.description }),
          ]),
        ),
    }),
  ]),
);

export const RecipientInput = builder.inputType('RecipientInput', {
  description: 'Exactly one member: the provider and its recipient fields.',
  isOneOf: true,
  fields: (t) =>
    Object.fromEntries(
      Object.entries(memberInputs).map(([member, type]) => [
        member,
        t.field({ type, description: `Pay through provider ${recipientMembers[member]!.provider}.` }),
      ]),
    ),
});

export interface RecipientChoice {
  provider: ProviderCode;
  fields: Record<string, string>;
}

/** The chosen member as the upstream's providerCode and fields. */
export function recipientFromInput(input: Record<string, Record<string, string | null | undefined> | null | undefined>): RecipientChoice {
  const [member, values] = Object.entries(input).find(([, value]) => value != null)!;
  const definition = recipientMembers[member]!;
  const fields: Record<string, string> = {};
  for (const [name, value] of Object.entries(values!)) {
    if (value != null && value !== '') fields[definition.fields[name]!.key] = value;
  }
  return { provider: definition.provider, fields };
}

/** Maps a problem path in upstream terms (["recipient", "cardholder_name"]) to the input's path. */
export function inputPathFor(path: string[], provider: ProviderCode): string[] {
  if (path[0] !== 'recipient' || path[1] === undefined) return ['input', ...path];
  const [member, definition] = Object.entries(recipientMembers).find(([, d]) => d.provider === provider)!;
  const name = Object.entries(definition.fields).find(([, field]) => field.key === path[1])?.[0] ?? path[1];
  return ['input', 'recipient', member, name];
}
