import { GatewayError } from '../lib/gateway-error.ts';

/**
 * A reconciliation period: whole days in the agent's time zone, turned into instants, and
 * the days of the upstream list to read for it.
 *
 * The upstream filters its list by dates (endpoint 7) without saying which date or in
 * which zone. So the list is read one day wider on each side (every zone is within 14
 * hours of UTC), and each payment is placed in the period by its own creationDateTime.
 */
export interface Period {
  /** First and last day, both included, YYYY-MM-DD in `timeZone`. */
  from: string;
  to: string;
  timeZone: string;
  /** startsAt <= creation time < endsAt. */
  startsAt: Date;
  endsAt: Date;
  /** The upstream list's days to read (from, to parameters), oldest first. */
  readDays: string[];
}

/** The upstream keeps 50 days (spec, Endpoints rule 3); the widened read needs the day before `from`. */
export const UPSTREAM_WINDOW_DAYS = 50;
const DAY_MS = 24 * 60 * 60 * 1000;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The inputs a period is made of. */
export const periodFields = ['from', 'to', 'timeZone'] as const;
export type PeriodField = (typeof periodFields)[number];

export class PeriodError extends GatewayError {
  readonly code = 'period.invalid';
  readonly kind = 'input';
  constructor(
    message: string,
    /** The input it is about: from, to or timeZone. */
    readonly field: PeriodField,
  ) {
    super(message);
    this.name = 'PeriodError';
  }
}

export interface PeriodRequest {
  from?: string;
  to?: string;
  timeZone: string;
  now: Date;
}

/** The period asked for, or yesterday in the zone; refused with the reason when it cannot be read whole. */
export function resolvePeriod(request: PeriodRequest): Period {
  const { timeZone, now } = request;
  checkTimeZone(timeZone);
  const today = zonedDate(now, timeZone);
  const yesterday = addDays(today, -1);
  const from = request.from ?? request.to ?? yesterday;
  const to = request.to ?? (request.from === undefined ? yesterday : today);
  checkDate(from, 'from');
  checkDate(to, 'to');
  if (from > to) throw new PeriodError(`from ${from} is after to ${to}`, 'from');
  if (to > today) throw new PeriodError(`to ${to} is in the future (today is ${today} in ${timeZone})`, 'to');
  const startsAt = zonedMidnight(from, timeZone);
  const endsAt = zonedMidnight(addDays(to, 1), timeZone);
  const readFrom = utcDate(startsAt.getTime() - DAY_MS);
  const oldestReadable = addDays(utcDate(now.getTime()), -(UPSTREAM_WINDOW_DAYS - 1));
  if (readFrom < oldestReadable) {
    throw new PeriodError(
      `from ${from} is older than the upstream keeps payments (${UPSTREAM_WINDOW_DAYS} days): the earliest day that can be reconciled today is ${earliestFrom(oldestReadable, timeZone)}`,
      'from',
    );
  }
  const readTo = minDate(utcDate(endsAt.getTime() + DAY_MS - 1), utcDate(now.getTime() + DAY_MS));
  const readDays: string[] = [];
  for (let day = readFrom; day <= readTo; day = addDays(day, 1)) readDays.push(day);
  return { from, to, timeZone, startsAt, endsAt, readDays };
}

/** The day in `timeZone` that an instant falls on, YYYY-MM-DD. */
export function zonedDate(instant: Date, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(instant);
  const get = (type: string) => parts.find((part) => part.type === type)!.value;
  return `${get('year')}-${get('month')}-${get('day')}`;
}

/**
 * The instant a day starts in `timeZone`: midnight at the offset in force before or after
 * a clock change near it, whichever is that day's first instant. Where the change skips
 * midnight itself (America/Santiago, America/Havana: 23:59:59 is followed by 01:00) the day
 * starts at the change.
 */
export function zonedMidnight(day: string, timeZone: string): Date {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  const utcMidnight = Date.UTC(y, m - 1, d);
  const candidates = [offsetMs(utcMidnight - DAY_MS, timeZone), offsetMs(utcMidnight + DAY_MS, timeZone)]
    .map((offset) => utcMidnight - offset)
    .sort((a, b) => a - b);
  const startsDay = (instant: number) => zonedDate(new Date(instant), timeZone) === day && zonedDate(new Date(instant - 1), timeZone) < day;
  let start = candidates.find(startsDay);
  // A change that does not fall on a whole hour at midnight: the first minute of the day between the two.
  for (let instant = candidates[0]! - 3_600_000; start === undefined && instant <= candidates[1]! + 3_600_000; instant += 60_000) {
    if (startsDay(instant)) start = instant;
  }
  return new Date(start ?? candidates[0]!);
}

export function addDays(day: string, days: number): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return utcDate(Date.UTC(y, m - 1, d) + days * DAY_MS);
}

function earliestFrom(oldestReadable: string, timeZone: string): string {
  // The first zone day whose previous UTC day is still readable.
  let day = zonedDate(new Date(Date.parse(`${oldestReadable}T00:00:00Z`) + DAY_MS), timeZone);
  while (utcDate(zonedMidnight(day, timeZone).getTime() - DAY_MS) < oldestReadable) day = addDays(day, 1);
  return day;
}

/** How far `timeZone`'s wall clock is ahead of UTC at an instant. */
function offsetMs(instant: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(new Date(instant));
  const get = (type: string) => Number(parts.find((part) => part.type === type)!.value);
  const wall = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return wall - Math.floor(instant / 1000) * 1000;
}

export function checkTimeZone(timeZone: string): void {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
  } catch {
    throw new PeriodError(`time zone "${timeZone}" is not known: use an IANA name such as UTC or Europe/Moscow`, 'timeZone');
  }
}

function checkDate(day: string, field: 'from' | 'to'): void {
  const epoch = DATE.test(day) ? Date.parse(`${day}T00:00:00Z`) : Number.NaN;
  if (Number.isNaN(epoch) || utcDate(epoch) !== day) {
    throw new PeriodError(`${field} "${day}" is not a date: use YYYY-MM-DD, such as 2026-11-24`, field);
  }
}

function utcDate(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 10);
}

function minDate(a: string, b: string): string {
  return a < b ? a : b;
}
