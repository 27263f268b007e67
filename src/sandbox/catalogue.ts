import type { Parameter, ProviderCode, ProviderInfo } from '../payout/models.ts';
import { BANK_ID, FREE_TEXT, NAME, PAN, PHONE, TOKEN } from '../payout/published-patterns.ts';

/** What the sandbox knows of each provider: the spec's ProviderInfo plus its fee. */
export interface SandboxProvider {
  code: ProviderCode;
  info: ProviderInfo;
  /** Commission in basis points of the amount, rounded up, never below the minimum. */
  commissionBps: bigint;
  commissionMinMinor: bigint;
}

const param = (extKey: string, required: boolean, description: string, validationPattern: string): Parameter => ({
  extKey,
  required,
  description,
  validationPattern,
});

const pan = param('pan', true, 'Recipient card number', PAN);
const lastName = param('lastName', true, 'Recipient last name', NAME);
const firstName = param('firstName', true, 'Recipient first name', NAME);
const middleName = param('middleName', false, 'Recipient middle name', NAME);
const description = param('description', false, 'Payment description', FREE_TEXT);
const cardholderName = param('cardholder_name', false, 'Cardholder first name', NAME);
const cardholderLastname = param('cardholder_lastname', false, 'Cardholder last name', NAME);
const phone = param('account', true, 'Recipient phone in international format without +', PHONE);
const bankId = param('bankId', true, 'Recipient bank identifier in the fast payment system', BANK_ID);

const contact = { address: '1 Sandbox Street, Moscow', phoneNumber: '+7 800 000-00-00' };
const cardLimits = { RUB: { min: '1.00', max: '600000.00' } };
const sbpLimits = { RUB: { min: '10.00', max: '1000000.00' } };

const card = (code: ProviderCode, name: string, parameters: Parameter[]): SandboxProvider => ({
  code,
  info: {
    name,
    legalName: 'Sandbox Card Processing LLC',
    amountLimits: cardLimits,
    parameters,
    inn: '7700000001',
    contactDetails: contact,
  },
  commissionBps: 150n,
  commissionMinMinor: 2_500n,
});

const sbp = (code: ProviderCode, name: string, parameters: Parameter[]): SandboxProvider => ({
  code,
  info: { name, legalName: 'Sandbox Fast Payments JSC', amountLimits: sbpLimits, parameters, inn: '7700000002', contactDetails: contact },
  commissionBps: 70n,
  commissionMinMinor: 1_000n,
});

export const sandboxProviders: readonly SandboxProvider[] = [
  card('bank-card-russia', 'Payouts to Russian cards', [pan, cardholderName, cardholderLastname, description]),
  card('bank-card-russia-fio', 'Payouts to Russian cards with recipient name', [pan, lastName, firstName, middleName, description]),
  card('bank-card-russia-gph', 'Payouts to Russian cards under a civil-law contract', [
    pan,
    lastName,
    firstName,
    param('purpose', true, 'Purpose of the service provided', FREE_TEXT),
    middleName,
  ]),
  card('bank-card-token', 'Payouts to Russian cards by card token', [
    param('account', true, 'Recipient card token', TOKEN),
    cardholderName,
    cardholderLastname,
    description,
  ]),
  sbp('sbp-b2c', 'Fast payment system payouts', [phone, bankId, description]),
  sbp('sbp-fio', 'Fast payment system payouts with recipient name', [phone, bankId, lastName, firstName, middleName, description]),
];

export function findProvider(code: string): SandboxProvider | undefined {
  return sandboxProviders.find((provider) => provider.code === code);
}
