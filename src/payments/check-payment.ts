import { patternMessage } from '../batch/field-formats.ts';
import { isMoneyValue, toMinorUnits } from '../money/money.ts';
import type { PaymentPayload } from '../payout/models.ts';
import type { FieldProblem } from './input-error.ts';
import type { ProviderDetails } from './provider-catalogue.ts';

/**
 * A payment against its provider's live details: currency, amount limits (inclusive),
 * required parameters, validation patterns and unknown parameters. Empty when payable.
 */
export function checkPaymentAgainstProvider(payload: PaymentPayload, provider: ProviderDetails): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const { amount, recipientDetails } = payload;
  const limit = provider.info.amountLimits[amount.currency];
  if (!isMoneyValue(amount.value)) {
    problems.push({ path: ['amount'], code: 'amount.format', message: `"${amount.value}" is not an amount with two decimals such as 1500.00` });
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
        message: `${amount.value} is outside the ${provider.code} limits ${limit.min}–${limit.max} ${amount.currency}`,
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
