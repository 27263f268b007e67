/**
 * The only rewrites of a recipient value the import makes, each one reported to the
 * uploader as a warning: separators that cannot change which number is meant. A value
 * that needs anything more (a letter, a second +, a trunk prefix) is left as written and
 * fails validation instead.
 */
export interface Rewrite {
  value: string;
  /** What was removed, for the warning: "the leading +, spaces and dashes". */
  removed: string;
}

const PHONE_CHARS = /^\+?[0-9 \u00A0\-().]+$/;
const CARD_CHARS = /^[0-9](?:[0-9 \u00A0-]*[0-9])?$/;

/** "+7 (900) 123-45-67" -> "79001234567". Brackets must be one pair, in order. */
export function rewritePhone(raw: string): Rewrite | undefined {
  if (!PHONE_CHARS.test(raw)) return undefined;
  const open = raw.indexOf('(');
  const close = raw.indexOf(')');
  const pairs = (raw.match(/\(/g) ?? []).length;
  if (pairs !== (raw.match(/\)/g) ?? []).length || pairs > 1 || (pairs === 1 && close < open)) return undefined;
  const digits = raw.replace(/\D/g, '');
  if (digits === raw || digits === '') return undefined;
  return { value: digits, removed: removedParts(raw) };
}

/** "2200 0000 0000 0004" or "2200-0000-0000-0004" -> "2200000000000004". */
export function rewriteCard(raw: string): Rewrite | undefined {
  if (!CARD_CHARS.test(raw)) return undefined;
  const digits = raw.replace(/\D/g, '');
  if (digits === raw) return undefined;
  return { value: digits, removed: removedParts(raw) };
}

export { looksDomestic } from '../../payout/field-formats.ts';

function removedParts(raw: string): string {
  const parts = [
    raw.startsWith('+') ? 'the leading +' : undefined,
    /[ \u00A0]/.test(raw) ? 'spaces' : undefined,
    raw.includes('-') ? 'dashes' : undefined,
    raw.includes('(') ? 'brackets' : undefined,
    raw.includes('.') ? 'dots' : undefined,
  ].filter((part) => part !== undefined);
  return parts.length === 1 ? parts[0]! : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}
