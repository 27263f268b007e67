import { maskPan } from './mask.ts';

/**
 * 13 or more digits, optionally grouped by single spaces, no-break spaces, dashes or dots:
 * how a card number is written in text ("4111 1111 1111 1111", "4111-1111-…", "4111.1111.…").
 */
const DIGIT_RUN = /\d(?:[ \u00A0.-]?\d){12,}/g;
const SEPARATORS = /[ \u00A0.-]/;

/**
 * Problem messages, column names and upstream words are stored, exported and shown to
 * people who must not see card numbers; any text may hold one (a shifted column, a missing
 * header, an echo in an upstream message).
 * Every long digit run is masked here, card checksum or not: a message loses nothing by it.
 */
export function redactCardNumbers(text: string): string {
  return text.replace(DIGIT_RUN, (digits) => maskPan(digits));
}

/**
 * The card numbers written in a free text, as written: a run of 13 to 19 digits (grouped
 * or not) that passes the Luhn check, or one group of such digits inside a longer grouped
 * run ("4111111111111111 1500.00"). A 20-digit bank account, ungrouped or grouped in parts
 * shorter than 13, and ids failing the check do not count. The one detector every caller
 * uses: batch rows, GraphQL input, the migration that masked what was stored before
 * (prisma/migrations/20261125130000_mask_card_numbers_in_text does the same in SQL).
 */
export function cardNumbersIn(text: string): string[] {
  const found: string[] = [];
  for (const run of withoutUuids(text).match(DIGIT_RUN) ?? []) {
    if (isCardNumber(run)) found.push(run);
    else if (SEPARATORS.test(run)) found.push(...run.split(SEPARATORS).filter(isCardNumber));
  }
  return found;
}

/**
 * A UUID (8-4-4-4-12 hex digits) is an id, not a card: when its leading groups happen to be
 * digits ("78708809-1403-0…", the sandbox's transactionId now and then) they read as 13 or
 * more grouped digits, and one in ten passes the checksum. Its characters are blanked out
 * before the digit runs are looked for.
 */
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
function withoutUuids(text: string): string {
  return text.includes('-') ? text.replace(UUID, (uuid) => '_'.repeat(uuid.length)) : text;
}

/** A run long enough to be looked at: most cells (names, purposes, references) have none, and are passed over without building a list. */
const LONG_RUN = /\d(?:[ \u00A0.-]?\d){12}/;

export function containsCardNumber(text: string): boolean {
  return text.length >= 13 && LONG_RUN.test(text) && cardNumbersIn(text).length > 0;
}

function isCardNumber(run: string): boolean {
  const digits = run.replace(/\D/g, '');
  return digits.length >= 13 && digits.length <= 19 && passesLuhn(digits);
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

/**
 * Why a free-text value is refused, for a problem message: the card number shown masked
 * (first 4 and last 4 digits, as everywhere), never the value around it.
 */
export function cardNumberMessage(value: string): string {
  const shown = cardNumbersIn(value).map((run) => maskPan(run));
  return `holds what looks like a card number (${shown.join(', ')}); card numbers go only in pan, where they are encrypted`;
}
