import { z } from 'zod';
import { isMoneyValue, toMinorUnits } from '../money/money.ts';
import { currencies, PAYMENT_ID, type PaymentPayload } from '../payout/models.ts';
import { SandboxApiError } from './api-error.ts';
import { findProvider, type SandboxProvider } from './catalogue.ts';

/** The request's shape only: enough to rebuild the signed string. Meaning is checked later. */
const PayloadShape = z.object({
  amount: z.object({ value: z.string(), currency: z.string() }),
  recipientDetails: z.object({
    providerCode: z.string(),
    fields: z.record(z.string(), z.string()),
  }),
  webhookUrl: z.string().optional(),
  customFields: z.record(z.string(), z.string()).optional(),
});

export function checkPaymentId(paymentId: string): void {
  if (!PAYMENT_ID.test(paymentId)) {
    throw new SandboxApiError('validation.error', 'paymentId must be 1 to 36 characters', {
      paymentId: ['must be 1 to 36 printable characters without spaces'],
    });
  }
}

export function parsePayloadShape(body: unknown): PaymentPayload {
  const result = PayloadShape.safeParse(body);
  if (result.success) return result.data as PaymentPayload;
  const cause: Record<string, string[]> = {};
  for (const issue of result.error.issues) {
    const key = issue.path.join('.') || 'body';
    (cause[key] ??= []).push(issue.message);
  }
  throw new SandboxApiError('validation.error', 'the payment body does not match PaymentPayload', cause);
}

/** Provider, currency, amount and recipient fields against the provider's details. */
export function validatePayment(payload: PaymentPayload): SandboxProvider {
  const provider = findProvider(payload.recipientDetails.providerCode);
  if (provider === undefined) {
    throw new SandboxApiError('payout.provider.not-found', `provider ${payload.recipientDetails.providerCode} not found`, {
      'recipientDetails.providerCode': ['unknown provider'],
    });
  }
  if (!isMoneyValue(payload.amount.value)) {
    throw new SandboxApiError('validation.error', 'amount.value must be a number with two decimals', {
      amount: ['must be a number with "." and exactly two decimals, such as 100.00'],
    });
  }
  const cause: Record<string, string[]> = {};
  const add = (key: string, message: string) => (cause[key] ??= []).push(message);
  const limit = (currencies as readonly string[]).includes(payload.amount.currency)
    ? provider.info.amountLimits[payload.amount.currency as 'RUB']
    : undefined;
  if (limit === undefined) {
    add('amount.currency', `currency ${payload.amount.currency} is not allowed for ${provider.code}`);
  } else {
    const amount = toMinorUnits(payload.amount.value);
    if (amount < toMinorUnits(limit.min) || amount > toMinorUnits(limit.max)) {
      add('amount', `must be between ${limit.min} and ${limit.max} ${payload.amount.currency}`);
    }
  }
  const fields = payload.recipientDetails.fields;
  const known = new Set(provider.info.parameters.map((p) => p.extKey));
  for (const parameter of provider.info.parameters) {
    const value = fields[parameter.extKey];
    if (value === undefined || value === '') {
      if (parameter.required) add(parameter.extKey, 'is required');
    } else if (parameter.validationPattern !== undefined && !new RegExp(parameter.validationPattern, 'u').test(value)) {
      add(parameter.extKey, `does not match ${parameter.validationPattern}`);
    }
  }
  for (const key of Object.keys(fields)) {
    if (!known.has(key)) add(key, `is not a parameter of ${provider.code}`);
  }
  if (payload.webhookUrl !== undefined && !/^https?:\/\/\S+$/.test(payload.webhookUrl)) {
    add('webhookUrl', 'must be an http(s) URL');
  }
  if (Object.keys(cause).length > 0) {
    throw new SandboxApiError('payout.bad.request', 'payment parameters are missing or incorrect', cause);
  }
  return provider;
}
