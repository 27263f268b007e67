import { cardNumberMessage, containsCardNumber } from '../log/card-numbers.ts';
import { DOMESTIC_PHONE_MESSAGE, formatOf, looksDomestic, patternMessage } from '../payout/field-formats.ts';
import { isMoneyValue, toMinorUnits } from '../money/money.ts';
import { amountInWords, groupedAmount } from '../money/money-text.ts';
import type { PaymentPayload } from '../payout/models.ts';
import type { FieldProblem } from './input-error.ts';
import type { ProviderDetails } from './provider-catalogue.ts';

/**
 * A payment against its provider's live details and free of card numbers in free text
 * (cardNumberProblems, then providerProblems). Empty when payable.
 */
export function checkPaymentAgainstProvider(payload: PaymentPayload, provider: ProviderDetails): FieldProblem[] {
  const cards = cardNumberProblems(payload.recipientDetails.fields, payload.customFields ?? {});
  return [...cards, ...providerProblems(payload, provider, fieldsNamed(cards))];
}

/**
 * The recipient fields meant for a card number, a card token or a phone: checked by their
 * own patterns, and sealed or masked wherever they are stored. Every other field is free
 * text, stored, exported and shown as written.
 */
const CARD_FIELDS: ReadonlySet<string> = new Set(['pan', 'account']);

/**
 * Card numbers where they would be kept in clear: a free-text recipient field
 * (`field.card-number`, path ["recipient", key]) or a custom field's key or value
 * (`custom.card-number`, path ["customFields", key]; ["customFields"] alone when the key is
 * the card number, so the path does not repeat it). Messages show the number masked.
 */
export function cardNumberProblems(fields: Record<string, string>, customFields: Record<string, string>): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const [key, value] of Object.entries(fields)) {
    if (!CARD_FIELDS.has(key) && containsCardNumber(value)) {
      problems.push({ path: ['recipient', key], code: 'field.card-number', message: cardNumberMessage(value) });
    }
  }
  for (const [key, value] of Object.entries(customFields)) {
    if (containsCardNumber(key))
      problems.push({ path: ['customFields'], code: 'custom.card-number', message: `a custom field's name ${cardNumberMessage(key)}` });
    else if (containsCardNumber(value))
      problems.push({ path: ['customFields', key], code: 'custom.card-number', message: cardNumberMessage(value) });
  }
  return problems;
}

/** The recipient fields these problems are about. */
export function fieldsNamed(problems: FieldProblem[]): Set<string> {
  return new Set(problems.filter((p) => p.path[0] === 'recipient' && p.path[1] !== undefined).map((p) => p.path[1]!));
}

/**
 * A payment against its provider's live details: currency, amount limits (inclusive),
 * required parameters, validation patterns and unknown parameters. A field in `reported`
 * already has its problem (a card number in it) and is not checked against its pattern.
 */
export function providerProblems(
  payload: PaymentPayload,
  provider: ProviderDetails,
  reported: ReadonlySet<string> = new Set(),
): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const { amount, recipientDetails } = payload;
  const limit = provider.info.amountLimits[amount.currency];
  if (!isMoneyValue(amount.value)) {
    problems.push({
      path: ['amount'],
      code: 'amount.format',
      message: `"${amount.value}" is not an amount with two decimals such as 1500.00`,
    });
  } else if (amount.value === '0.00') {
    problems.push({ path: ['amount'], code: 'amount.zero', message: 'must be greater than 0.00' });
  } else if (limit === undefined) {
    problems.push({ path: ['currency'], code: 'currency.unsupported', message: `${provider.code} does not pay in ${amount.currency}` });
  } else {
    const minor = toMinorUnits(amount.value);
    if (minor < toMinorUnits(limit.min) || minor > toMinorUnits(limit.max)) {
      problems.push({
        path: ['amount'],
        code: 'amount.limit',
        // Read by people (the page, the CLI, a GraphQL client's user): amounts grouped, as money-text.ts writes them.
        message: `${amountInWords(amount.value, amount.currency)} is outside the ${provider.code} limits ${groupedAmount(limit.min)}–${amountInWords(limit.max, amount.currency)}`,
      });
    }
  }
  const known = new Set<string>();
  for (const parameter of provider.info.parameters) {
    known.add(parameter.extKey);
    const value = recipientDetails.fields[parameter.extKey];
    if (value === undefined || value === '') {
      if (parameter.required) {
        problems.push({ path: ['recipient', parameter.extKey], code: 'field.required', message: `is required for ${provider.code}` });
      }
      continue;
    }
    if (reported.has(parameter.extKey)) continue;
    // 89001234567 may pass a phone pattern, yet would be paid to another number: the payroll file's rule and words.
    if (formatOf(parameter, provider.code).kind === 'phone' && looksDomestic(value)) {
      problems.push({ path: ['recipient', parameter.extKey], code: 'field.pattern', message: DOMESTIC_PHONE_MESSAGE });
      continue;
    }
    if (parameter.validationPattern !== undefined && !matches(parameter.validationPattern, value)) {
      problems.push({
        path: ['recipient', parameter.extKey],
        code: 'field.pattern',
        // What the field must look like, with an example: never the regular expression.
        message: patternMessage(parameter, provider.code),
      });
    }
  }
  for (const key of Object.keys(recipientDetails.fields)) {
    if (!known.has(key)) {
      problems.push({ path: ['recipient', key], code: 'field.not-for-provider', message: `is not a parameter of ${provider.code}` });
    }
  }
  return problems;
}

/** Upstream patterns are data: one that is not a valid regular expression cannot reject a value. */
function matches(pattern: string, value: string): boolean {
  try {
    return new RegExp(pattern, 'u').test(value);
  } catch {
    return true;
  }
}
