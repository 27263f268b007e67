import { redactCardNumbers } from '../../../log/card-numbers.ts';

const MAX_ECHO = 60;

/** A cell's text for a message: quoted, cut short (a cell can be megabytes), card numbers masked. */
export function quoteCell(value: string): string {
  // Masked before cutting, so a cut cannot leave a longer part of a card number visible.
  const masked = redactCardNumbers(value);
  return `"${masked.length > MAX_ECHO ? `${masked.slice(0, MAX_ECHO)}…` : masked}"`;
}
