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

const MAX_ECHO = 60;

/** A cell's text for a message: quoted, cut short (a cell can be megabytes), card numbers masked. */
export function quoteCell(value: string): string {
  // Masked before cutting, so a cut cannot leave a longer part of a card number visible.
  const masked = redactCardNumbers(value);
  return `"${masked.length > MAX_ECHO ? `${masked.slice(0, MAX_ECHO)}…` : masked}"`;
}
