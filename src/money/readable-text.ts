/**
 * Times inside server-side messages, which people read on the page and in the CLI alike
 * (issue 29, finding 4): a UTC date-time in words ("27 Nov 2026, 04:32 UTC"). One fixed form,
 * since a message is written once for every reader; structured fields beside a message
 * (DateTime) are what a client formats in its reader's locale. Never ISO 8601 or enum names in
 * words meant for people. Amounts in messages: amountInWords in money-text.ts.
 */

/** Written out, not Intl: ICU versions differ ("Sep" or "Sept"), and the text is part of the contract the tests and docs quote. */
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const day = (at: Date) => `${at.getUTCDate()} ${MONTHS[at.getUTCMonth()]} ${at.getUTCFullYear()}`;
const time = (at: Date) => `${String(at.getUTCHours()).padStart(2, '0')}:${String(at.getUTCMinutes()).padStart(2, '0')}`;

/** "27 Nov 2026": a UTC day, where the time of day says nothing more. */
export function utcDay(at: Date): string {
  return day(at);
}

/** "27 Nov 2026, 04:32 UTC". */
export function utcDateTime(at: Date): string {
  return `${day(at)}, ${time(at)} UTC`;
}

/** "04:32 UTC on 27 Nov 2026": for "read again at …". */
export function utcTimeOn(at: Date): string {
  return `${time(at)} UTC on ${day(at)}`;
}
