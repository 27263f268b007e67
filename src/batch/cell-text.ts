import { maskPan } from '../log/mask.ts';

/** 13 or more digits, optionally grouped by spaces or dashes: what a card number looks like in a cell. */
const CARD_LIKE = /\d(?:[ \u00A0-]?\d){12,}/g;

/**
 * Problem messages and column names are stored, exported and shown to people who must
 * not see card numbers; any cell text may hold one (a shifted column, a missing header).
 */
export function redactCardNumbers(text: string): string {
  return text.replace(CARD_LIKE, (digits) => maskPan(digits));
}

/**
 * A card number written in free text: a run of 13 to 19 digits (grouped or not) that passes
 * the Luhn check. Longer runs (a 20-digit bank account) and ids failing the check do not count.
 */
export function containsCardNumber(text: string): boolean {
  for (const run of text.match(CARD_LIKE) ?? []) {
    const digits = run.replace(/\D/g, '');
    if (digits.length >= 13 && digits.length <= 19 && passesLuhn(digits)) return true;
  }
  return false;
}

function passesLuhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return sum % 10 === 0;
}

const MAX_ECHO = 60;

/** A cell's text for a message: quoted, cut short (a cell can be megabytes), card numbers masked. */
export function quoteCell(value: string): string {
  // Masked before cutting, so a cut cannot leave a longer part of a card number visible.
  const masked = redactCardNumbers(value);
  return `"${masked.length > MAX_ECHO ? `${masked.slice(0, MAX_ECHO)}…` : masked}"`;
}
