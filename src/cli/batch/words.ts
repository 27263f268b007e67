/**
 * Times and counts as a person at this terminal reads them: the locale Node takes from the
 * environment (LC_ALL, LANG), the machine's time zone. --json documents keep decimal strings
 * and ISO 8601; this is for text only. Amounts: localAmount in src/money/money-text.ts.
 */
const times = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** "27 Nov 2026, 09:32:27" in the terminal's locale and time zone, for an ISO time the gateway sent. */
export function timeText(iso: string): string {
  return times.format(new Date(iso));
}

const days = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });

/** "27 Nov 2026" in the terminal's locale, for a day ("2026-11-27") the gateway counts in its own time zone: a day, not a moment to shift. */
export function dayText(day: string): string {
  return days.format(new Date(`${day}T00:00:00Z`));
}

const shortDays = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short' });

/** "27 Oct" in the terminal's locale and time zone: the day of a payment, where the year goes without saying. */
export function shortDayText(iso: string): string {
  return shortDays.format(new Date(iso));
}

const counts = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });

/** "1 error", "2 errors", "1,951 rows": a count and its noun, singular for one. */
export function countOf(count: number, noun: string, plural = `${noun}s`): string {
  return `${counts.format(count)} ${count === 1 ? noun : plural}`;
}
