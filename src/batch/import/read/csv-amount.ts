import { quoteCell } from './cell-text.ts';

/**
 * Amounts as spreadsheets write them: "1500", "1500.5", "1 500,50" (space, no-break or
 * narrow no-break space between thousands), decimal "." or ",". Anything that could be
 * read two ways, or has more than two decimals, a sign or an exponent, is refused rather
 * than guessed.
 */
const GROUPED = /^\d{1,3}(?:[ \u00A0\u202F]\d{3})+$/;
const PLAIN = /^\d+$/;
/** Digits, separators and signs only: anything else (a word, a currency) is not a number at all. */
const NUMERIC = /^[+-]?[\d.,  \u00A0\u202F]*\d[\d.,  \u00A0\u202F]*[+-]?$/;
/** "1e3", "1,5E+3": what a spreadsheet writes for a large number in a narrow cell. */
const EXPONENT = /^[+-]?(?:\d+(?:[.,]\d*)?|[.,]\d+)e[+-]?\d+$/i;

export type AmountResult = { value: string } | { error: string };

export function parseCsvAmount(raw: string): AmountResult {
  const text = raw.trim();
  if (text === '') return { error: 'is empty' };
  if (EXPONENT.test(text)) return { error: `${quoteCell(raw)} is in exponent notation` };
  if (!NUMERIC.test(text)) return { error: `${quoteCell(raw)} is not a number; write the amount in digits, such as 1500.00` };
  if (/[+-]/.test(text)) return { error: `${quoteCell(raw)} has a sign; amounts are positive numbers such as 1500.00` };
  const separators = text.match(/[.,]/g) ?? [];
  if (separators.length > 1) return { error: `${quoteCell(raw)} has more than one decimal separator` };
  const [whole = '', fraction] = separators.length === 1 ? text.split(/[.,]/) : [text, undefined];
  if (!(PLAIN.test(whole) || GROUPED.test(whole))) return { error: `${quoteCell(raw)} is not a number` };
  // "1,500" and "1.500": a thousands separator to some, a decimal one to others.
  if (fraction !== undefined && /^\d{3}$/.test(fraction) && /^[1-9]\d{0,2}$/.test(whole)) {
    return {
      error: `${quoteCell(raw)} could be read two ways, as ${whole}.${fraction} or as ${whole}${fraction}: write ${whole}${fraction}.00 for ${numberWords(whole, fraction)}, or, for an amount with decimals, at most two of them, such as ${whole}.${fraction.slice(0, 2)}`,
    };
  }
  if (fraction !== undefined && !/^\d{1,2}$/.test(fraction)) {
    return { error: `${quoteCell(raw)} has more than two decimals; amounts have at most two, such as 1500.50` };
  }
  const digits = whole.replace(/\D/g, '').replace(/^0+(?=\d)/, '');
  if (digits.length > 16) return { error: `${quoteCell(raw)} is too large` };
  return { value: `${digits}.${(fraction ?? '').padEnd(2, '0')}` };
}

/** "one thousand five hundred" for 1 500 and the like; digits for anything else, which is unambiguous enough. */
function numberWords(whole: string, fraction: string): string {
  const thousands = Number(whole);
  const rest = Number(fraction);
  if (rest % 100 !== 0 || thousands > 9) return `${whole}${fraction}`;
  const ones = ['', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];
  return `${ones[thousands]} thousand${rest === 0 ? '' : ` ${ones[rest / 100]} hundred`}`;
}
