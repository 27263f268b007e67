import { decimalText, type Amount } from './money-wire.ts';

/**
 * Money as people read it, in two forms. Server messages are written once for every reader,
 * so they take one fixed form, grouped by thousands with the currency code ("46,950.60 RUB",
 * issue 29, finding 4). The page and the command line know their reader's locale and format
 * with Intl ("₽46,950.60" in en, "46 950,60 ₽" in ru). Both format the decimal string
 * itself, never a float. The page imports this file too, so it imports nothing Node-only.
 */

/** "46950.60" -> "46,950.60": the decimal string regrouped as text. */
export function groupedAmount(value: string): string {
  const [sign, whole, fraction] = /^(-?)(\d+)(\.\d+)?$/.exec(value)?.slice(1) ?? ['', value, ''];
  return `${sign}${whole!.replace(/\B(?=(\d{3})+$)/g, ',')}${fraction ?? ''}`;
}

/** "46,950.60 RUB": the fixed form of server messages. */
export function amountInWords(amount: Amount, currency: string): string {
  return `${groupedAmount(decimalText(amount))} ${currency}`;
}

const formats = new Map<string, Intl.NumberFormat>();

/**
 * "₽46,950.60" (en), "46 950,60 ₽" (ru): for a reader whose locale is known, the page's
 * language or, left out, the one Node takes from the environment (LC_ALL, LANG).
 */
export function localAmount(amount: Amount, currency: string, locale?: string): string {
  const key = `${locale ?? ''}|${currency}`;
  let format = formats.get(key);
  if (format === undefined) {
    format = new Intl.NumberFormat(locale, {
      style: 'currency',
      currency,
      currencyDisplay: 'narrowSymbol',
      minimumFractionDigits: 2,
      maximumFractionDigits: 2,
    });
    formats.set(key, format);
  }
  // A numeric string is formatted exactly (Intl.NumberFormat v3), whatever its size: no rounding through a double.
  return format.format(decimalText(amount) as Intl.StringNumericLiteral);
}
