import type { Translator } from './i18n.ts';
import { PROVIDER_NAMES } from './queries.ts';

/**
 * A payment method and a recipient as a clerk reads them (issue 38): "Bank card (Russia)",
 * not bank-card-russia; "card 2200 00•• •••• 0004 · IVAN IVANOV", not "pan: …,
 * cardholder_name: IVAN". The codes stay in the files and the API.
 */
export function providerName(provider: string, i18n: Translator): string {
  const code = PROVIDER_NAMES[provider] ?? provider;
  // A provider the page has no name for yet (a new one upstream) keeps its code.
  return Object.values(PROVIDER_NAMES).includes(code) ? i18n.t(`provider.${code}` as Parameters<Translator['t']>[0]) : code;
}

/** Name parts in the order a person writes them: a card's holder, or last, first and middle name. */
const NAME_FIELDS = ['cardholder_name', 'cardholder_lastname', 'lastName', 'firstName', 'middleName'];
/** What the payment is for, not who receives it: the file and the results carry it. */
const NOT_RECIPIENT = new Set(['description', 'purpose']);

export function recipientText(provider: string, fields: ReadonlyArray<{ key: string; value: string }>, i18n: Translator): string {
  const { t } = i18n;
  const value = (key: string) => fields.find((field) => field.key === key)?.value;
  const code = PROVIDER_NAMES[provider] ?? provider;
  const parts: string[] = [];
  const pan = value('pan');
  if (pan !== undefined) parts.push(t('recipient.card', { value: pan }));
  const account = value('account');
  if (account !== undefined)
    parts.push(
      t(code.startsWith('sbp-') ? 'recipient.phone' : code === 'bank-card-token' ? 'recipient.token' : 'recipient.account', {
        value: account,
      }),
    );
  const bank = value('bankId');
  if (bank !== undefined) parts.push(t('recipient.bank', { value: bank }));
  const name = NAME_FIELDS.map(value).filter((part) => part !== undefined && part !== '');
  if (name.length > 0) parts.push(name.join(' '));
  // A column the page has no word for is still shown, under its own name.
  const known = new Set(['pan', 'account', 'bankId', ...NAME_FIELDS, ...NOT_RECIPIENT]);
  for (const field of fields) if (!known.has(field.key)) parts.push(`${field.key}: ${field.value}`);
  return parts.join(' · ');
}
