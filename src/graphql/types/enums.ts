import { TrackedStatus } from '../../db/generated/enums.ts';
import { currencies, errorCodes, providerCodes, statusCodes, statusErrorCodes } from '../../payout/models.ts';
import { builder } from '../builder.ts';

/** `bank-card-russia` -> `BANK_CARD_RUSSIA`; `payout.resource.exists` -> `PAYOUT_RESOURCE_EXISTS`. */
export const enumName = (code: string) => code.replace(/[.-]/g, '_').toUpperCase();

const valuesOf = <T extends string>(codes: readonly T[], describe?: (code: T) => string) =>
  Object.fromEntries(codes.map((code) => [enumName(code), { value: code, description: describe?.(code) }])) as Record<
    string,
    { value: T; description?: string }
  >;

export const CurrencyEnum = builder.enumType('Currency', { values: valuesOf(currencies) });

export const ProviderCodeEnum = builder.enumType('ProviderCode', {
  description: 'Payout provider; each value stands for the upstream code in its description.',
  values: valuesOf(providerCodes, (code) => `Upstream code ${code}`),
});

export const PaymentStatusEnum = builder.enumType('PaymentStatus', {
  description: 'The upstream payment status (the spec’s StatusCode).',
  values: valuesOf(statusCodes),
});

export const PaymentErrorCodeEnum = builder.enumType('PaymentErrorCode', {
  description: 'Why a payment failed or expired (the spec’s StatusErrorCode).',
  values: valuesOf(statusErrorCodes),
});

export const TrackingStatusEnum = builder.enumType('TrackingStatus', {
  description:
    'The gateway’s own record: the upstream status, or PENDING (create sent, not confirmed), REJECTED (the upstream refused the create; nothing exists there) or UNKNOWN (an answer was lost and reading back could not settle it; a person must look).',
  values: Object.values(TrackedStatus),
});

/** Codes of the client itself, next to the upstream's Error codes. */
export const clientErrorCodes = [
  'network.error',
  'network.timeout',
  'upstream.invalid-response',
  'payout.payment.conflict',
  'payout.outcome.unknown',
  'payout.payment.still-ready',
  'partner.unavailable',
] as const;

export const PayoutErrorCodeEnum = builder.enumType('PayoutErrorCode', {
  description: 'The upstream Error code, a code of the gateway’s client, or OTHER for a code this version does not know.',
  values: { ...valuesOf([...errorCodes, ...clientErrorCodes]), OTHER: { value: 'other' } },
});

const knownPayoutCodes = new Set<string>([...errorCodes, ...clientErrorCodes]);
export const payoutErrorCode = (code: string) => (knownPayoutCodes.has(code) ? code : 'other');
