import { fromMinorUnits, MoneyFormatError } from './money.ts';

/**
 * Money as machines read it: the decimal string with exactly two places ("1500.00") and the
 * Money object of GraphQL and the partner's payload ({ value, currency }). Every amount that
 * leaves the gateway as a value (GraphQL, CSV exports, outbound events, the partner) is
 * written here, from integer minor units or from the database's decimal, never through a float.
 */

/**
 * What Prisma reads from a NUMERIC(18, 2) column (its Decimal), described by shape so this
 * kernel imports no database: isNegative keeps a JavaScript number (a float) out.
 */
export interface DecimalValue {
  isNegative(): boolean;
  toString(): string;
}

/** An amount in any of the forms the gateway holds: the decimal string, minor units, the database's decimal. */
export type Amount = string | bigint | DecimalValue;

/** A plain decimal with at most two places, as a Decimal(18, 2) prints itself ("1500.5", "0", "-12"). */
const PRINTED_DECIMAL = /^(-?)(\d+)(?:\.(\d{1,2}))?$/;

/** The database's decimal in minor units, read from its own digits (a scale-2 column never holds more). */
export function minorUnitsOf(amount: DecimalValue): bigint {
  const text = amount.toString();
  const match = PRINTED_DECIMAL.exec(text);
  if (match === null) throw new MoneyFormatError(text);
  const minor = BigInt(match[2]!) * 100n + BigInt((match[3] ?? '').padEnd(2, '0'));
  return match[1] === '-' ? -minor : minor;
}

/**
 * "1500.00": the wire's decimal string. A string is taken as already written so (it came
 * from the partner or a payer and was checked where it came in).
 */
export function decimalText(amount: Amount): string;
export function decimalText(amount: Amount | null | undefined): string | null;
export function decimalText(amount: Amount | null | undefined): string | null {
  if (amount === null || amount === undefined) return null;
  if (typeof amount === 'string') return amount;
  return fromMinorUnits(typeof amount === 'bigint' ? amount : minorUnitsOf(amount));
}

/** { value: "1500.00", currency: "RUB" }: GraphQL's Money and the partner's amount. */
export function moneyObject<C extends string>(amount: Amount, currency: C): { value: string; currency: C } {
  return { value: decimalText(amount), currency };
}
