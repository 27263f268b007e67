import { z } from 'zod';
import { MONEY_VALUE, SIGNED_MONEY_VALUE } from '../money/money.ts';

/** The partner API's resources (spec: "Resources and their fields"), validated on receipt. */

export const currencies = ['RUB'] as const;
export const Currency = z.enum(currencies);
export type Currency = z.infer<typeof Currency>;

export const providerCodes = [
  'bank-card-russia',
  'bank-card-russia-fio',
  'bank-card-russia-gph',
  'bank-card-token',
  'sbp-b2c',
  'sbp-fio',
] as const;
export const ProviderCode = z.enum(providerCodes);
export type ProviderCode = z.infer<typeof ProviderCode>;

export const statusCodes = ['CREATED', 'READY', 'EXPIRED', 'IN_PROGRESS', 'FAILED', 'COMPLETED'] as const;
export const StatusCode = z.enum(statusCodes);
export type StatusCode = z.infer<typeof StatusCode>;

/** Statuses after which a payment never changes again. */
export const finalStatuses: ReadonlySet<StatusCode> = new Set(['EXPIRED', 'FAILED', 'COMPLETED']);

export const statusErrorCodes = [
  'INTERNAL_ERROR',
  'INSUFFICIENT_FUNDS',
  'BILLING_DECLINED',
  'FRAUD_SUSPECTED',
  'LIMIT_ERROR',
  'EXPIRED',
] as const;
export const StatusErrorCode = z.enum(statusErrorCodes);
export type StatusErrorCode = z.infer<typeof StatusErrorCode>;

export const MoneyValue = z.string().regex(MONEY_VALUE, 'must have exactly two decimals');

export const Money = z.object({ currency: Currency, value: MoneyValue });
export type Money = z.infer<typeof Money>;

/** Balances may run below zero into an overdraft. */
const SignedMoney = z.object({ currency: Currency, value: z.string().regex(SIGNED_MONEY_VALUE, 'must have exactly two decimals') });

/** The spec's dateTime: ISO 8601 with an offset. */
export const DateTimeString = z.iso.datetime({ offset: true });

export const Balance = z.object({
  balance: SignedMoney.optional(),
  overdraft: Money.optional(),
  available: SignedMoney,
  updatedTime: DateTimeString.optional(),
});
export type Balance = z.infer<typeof Balance>;

export const Balances = z.partialRecord(Currency, Balance);
export type Balances = z.infer<typeof Balances>;

/** The list response uses `providerCode`; the model says `code`. Accept either. */
export const ProviderSummary = z
  .object({ providerCode: ProviderCode.optional(), code: ProviderCode.optional(), name: z.string() })
  .refine((p) => p.providerCode !== undefined || p.code !== undefined, 'provider without a code')
  .transform((p) => ({ code: (p.providerCode ?? p.code)!, name: p.name }));
export type ProviderSummary = z.infer<typeof ProviderSummary>;

export const Limit = z.object({ min: MoneyValue, max: MoneyValue });
export type Limit = z.infer<typeof Limit>;

export const Parameter = z.object({
  extKey: z.string(),
  required: z.boolean(),
  description: z.string(),
  validationPattern: z.string().optional(),
});
export type Parameter = z.infer<typeof Parameter>;

export const ProviderInfo = z.object({
  name: z.string(),
  legalName: z.string(),
  amountLimits: z.partialRecord(Currency, Limit),
  parameters: z.array(Parameter),
  inn: z.string().optional(),
  contactDetails: z.object({ address: z.string().optional(), phoneNumber: z.string().optional() }).optional(),
});
export type ProviderInfo = z.infer<typeof ProviderInfo>;

export const RecipientDetails = z.object({
  providerCode: ProviderCode,
  fields: z.record(z.string(), z.string()),
});
export type RecipientDetails = z.infer<typeof RecipientDetails>;

export const BillingDetails = z.object({
  transactionId: z.string().optional(),
  rrn: z.string().optional(),
  accountNumber: z.string().optional(),
  accountInfo: z.string().optional(),
  receiptUrl: z.string().optional(),
});
export type BillingDetails = z.infer<typeof BillingDetails>;

export const Status = z.object({
  value: StatusCode,
  changedDateTime: DateTimeString,
  /** Kept as sent: a code newer than this client (see statusErrorCodes) must break nothing. */
  errorCode: z.string().optional(),
  errorMessage: z.string().optional(),
});
export type Status = z.infer<typeof Status>;

export const PAYMENT_ID = /^[\x21-\x7e]{1,36}$/;
export const PaymentId = z.string().regex(PAYMENT_ID, 'must be 1 to 36 printable characters without spaces');

export const PaymentPayload = z.object({
  amount: Money,
  recipientDetails: RecipientDetails,
  webhookUrl: z.string().optional(),
  customFields: z.record(z.string(), z.string()).optional(),
});
export type PaymentPayload = z.infer<typeof PaymentPayload>;

export const Payment = z.object({
  paymentId: z.string(),
  creationDateTime: DateTimeString,
  expirationDateTime: DateTimeString,
  status: Status,
  amount: Money,
  recipientDetails: RecipientDetails,
  commission: Money,
  webhookUrl: z.string().optional(),
  customFields: z.record(z.string(), z.string()).optional(),
  billingDetails: BillingDetails.optional(),
});
export type Payment = z.infer<typeof Payment>;

export const Webhook = z.object({
  agentId: z.string(),
  paymentId: z.string(),
  status: Status,
  amount: Money,
  billingDetails: BillingDetails.optional(),
});
export type Webhook = z.infer<typeof Webhook>;

export const errorCodes = [
  'auth.error',
  'auth.failed',
  'auth.forbidden',
  'payout.bad.request',
  'payout.resource.exists',
  'payout.payment.not-found',
  'payout.provider.not-found',
  'validation.error',
  'payout.provider.forbidden',
  'payout.provider.unavailable',
  'payout.billing.declined',
  'payout.billing.timeout',
  'payout.fraud.violated',
  'payout.legislation.prohibited',
  'payout.insufficient-funds',
  'payout.internal.error',
  'internal.error',
] as const;
export type ErrorCode = (typeof errorCodes)[number];

/** Unknown codes are kept as strings: a newer upstream must not turn errors into crashes. */
export const ErrorBody = z.object({
  serviceName: z.string(),
  errorCode: z.string(),
  userMessage: z.string(),
  description: z.string(),
  traceId: z.string(),
  dateTime: z.string(),
  cause: z.record(z.string(), z.array(z.string())).optional(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

/** Upstream codes that mean "nothing happened, the same request may succeed later". */
export const transientErrorCodes: ReadonlySet<string> = new Set([
  'payout.provider.unavailable',
  'payout.billing.timeout',
  'payout.internal.error',
  'internal.error',
]);
