/**
 * Amounts as spreadsheets write them: "1500", "1500.5", "1 500,50" (space, no-break or
 * narrow no-break space between thousands), decimal "." or ",". Anything that could be
 * read two ways, or has more than two decimals, a sign or an exponent, is refused rather
 * than guessed.
 */
const GROUPED = /^\d{1,3}(?:[ \u00A0\u202F]\d{3})+$/;
const PLAIN = /^\d+$/;

export type AmountResult = { value: string } | { error: string };

export function parseCsvAmount(raw: string): AmountResult {
  const text = raw.trim();
  if (text === '') return { error: 'is empty' };
  if (/[+-]/.test(text)) return { error: `"${raw}" has a sign; amounts are positive numbers such as 1500.00` };
  if (/e/i.test(text)) return { error: `"${raw}" is in exponent notation` };
  const separators = text.match(/[.,]/g) ?? [];
  if (separators.length > 1) return { error: `"${raw}" has more than one decimal separator` };
  const [whole = '', fraction] = separators.length === 1 ? text.split(/[.,]/) : [text, undefined];
  if (!(PLAIN.test(whole) || GROUPED.test(whole))) return { error: `"${raw}" is not a number` };
  if (fraction !== undefined && !/^\d{1,2}$/.test(fraction)) {
    return { error: `"${raw}" needs at most two decimals` };
  }
  const digits = whole.replace(/\D/g, '').replace(/^0+(?=\d)/, '');
  if (digits.length > 16) return { error: `"${raw}" is too large` };
  return { value: `${digits}.${(fraction ?? '').padEnd(2, '0')}` };
}
