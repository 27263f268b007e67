import { GatewayError } from '../lib/gateway-error.ts';

/**
 * Money as the partner API writes it: digits, `.`, exactly two decimals. Arithmetic
 * happens on integer minor units (bigint) so no value ever passes through a float.
 */
export const MONEY_VALUE = /^(0|[1-9]\d{0,15})\.\d{2}$/;
export const SIGNED_MONEY_VALUE = /^-?(0|[1-9]\d{0,15})\.\d{2}$/;

export class MoneyFormatError extends GatewayError {
  readonly code = 'money.format';
  readonly kind = 'input';
  constructor(readonly value: string) {
    super(`"${value}" is not an amount with two decimals such as 1234.50`);
    this.name = 'MoneyFormatError';
  }
}

export function isMoneyValue(value: string): boolean {
  return MONEY_VALUE.test(value);
}

export function toMinorUnits(value: string): bigint {
  if (!MONEY_VALUE.test(value)) throw new MoneyFormatError(value);
  return BigInt(value.replace('.', ''));
}

/**
 * An amount that may be below zero, as the partner writes a balance ("-12.50"): an optional
 * minus, then the form of toMinorUnits. The one signed parse: the funds check and the
 * importer's balance warning read the partner's balance with it.
 */
export function signedToMinorUnits(value: string): bigint {
  if (!SIGNED_MONEY_VALUE.test(value)) throw new MoneyFormatError(value);
  return BigInt(value.replace('.', ''));
}

/**
 * A setting or other operator-typed amount: digits with up to two decimals ("0", "50000",
 * "50000.5", "50000.50"), as docs/operations/configuration.md documents settings. Inputs from payers keep the
 * strict two-decimal form of toMinorUnits.
 */
export const LENIENT_MONEY_VALUE = /^(0|[1-9]\d{0,15})(\.\d{1,2})?$/;

export function lenientToMinorUnits(value: string): bigint {
  if (!LENIENT_MONEY_VALUE.test(value)) throw new MoneyFormatError(value);
  const [units, decimals = ''] = value.split('.');
  return BigInt(units!) * 100n + BigInt(decimals.padEnd(2, '0'));
}

export function fromMinorUnits(minor: bigint): string {
  const negative = minor < 0n;
  const digits = (negative ? -minor : minor).toString().padStart(3, '0');
  return `${negative ? '-' : ''}${digits.slice(0, -2)}.${digits.slice(-2)}`;
}

/** Basis-point share of an amount, rounded up to the next minor unit (fees round against the payer). */
export function basisPoints(minor: bigint, bps: bigint): bigint {
  return (minor * bps + 9_999n) / 10_000n;
}
