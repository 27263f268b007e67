import { decimalText } from '../../src/money/money-wire.ts';

/**
 * Money arrives as decimal strings ("1500.00") and stays exact: sums are done in integer
 * kopecks with BigInt and written back by the server's wire formatter (decimalText in
 * src/money/money-wire.ts); amounts are shown by its formatter for people (localAmount in
 * src/money/money-text.ts), which formats the string itself, never a float.
 *
 * toMinor is the page's own copy of the server's signed parse (signedToMinorUnits in
 * src/money/money.ts), held to the same cases (test/support/money-cases.ts, read by
 * test/web/page-money.test.ts): it reads every amount the server reads, alike, and also
 * what a person types ("1500", "1500.5") and totals of any size, which the server refuses.
 */

const DECIMAL = /^(-?)(\d+)(?:\.(\d{1,2}))?$/;

export function toMinor(value: string): bigint {
  const match = DECIMAL.exec(value.trim());
  if (match === null) throw new Error(`not a decimal amount: ${value}`);
  const minor = BigInt(match[2]!) * 100n + BigInt((match[3] ?? '').padEnd(2, '0'));
  return match[1] === '-' ? -minor : minor;
}

export function sumDecimals(values: readonly string[]): string {
  return decimalText(values.reduce((total, value) => total + toMinor(value), 0n));
}

export function formatNumber(value: number, locale: string, digits = 0): string {
  return new Intl.NumberFormat(locale, { maximumFractionDigits: digits }).format(value);
}
