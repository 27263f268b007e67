import { describe, expect, it } from 'vitest';
import { PeriodError, resolvePeriod, zonedDate, zonedMidnight } from '../../src/reconciliation/period.ts';

const at = (iso: string) => new Date(iso);

describe('reconciliation period', () => {
  it("defaults to yesterday in the agent's zone, read a day wider on each side", () => {
    // 22:30 UTC on the 24th is already the 25th in Moscow (UTC+3).
    const moscow = resolvePeriod({ timeZone: 'Europe/Moscow', now: at('2026-11-24T22:30:00Z') });
    expect(moscow).toMatchObject({ from: '2026-11-24', to: '2026-11-24' });
    expect(moscow.startsAt.toISOString()).toBe('2026-11-23T21:00:00.000Z');
    expect(moscow.endsAt.toISOString()).toBe('2026-11-24T21:00:00.000Z');
    expect(moscow.readDays).toEqual(['2026-11-22', '2026-11-23', '2026-11-24', '2026-11-25']);
    const utc = resolvePeriod({ timeZone: 'UTC', now: at('2026-11-24T22:30:00Z') });
    expect(utc).toMatchObject({ from: '2026-11-23', to: '2026-11-23' });
    expect(utc.readDays).toEqual(['2026-11-22', '2026-11-23', '2026-11-24']);
  });

  it('takes one day when only from or to is given, and today when asked', () => {
    const now = at('2026-11-25T10:00:00Z');
    expect(resolvePeriod({ from: '2026-11-20', timeZone: 'UTC', now })).toMatchObject({ from: '2026-11-20', to: '2026-11-25' });
    expect(resolvePeriod({ to: '2026-11-20', timeZone: 'UTC', now })).toMatchObject({ from: '2026-11-20', to: '2026-11-20' });
    const today = resolvePeriod({ from: '2026-11-25', to: '2026-11-25', timeZone: 'UTC', now });
    // Never past tomorrow in UTC: no zone's today is later.
    expect(today.readDays).toEqual(['2026-11-24', '2026-11-25', '2026-11-26']);
  });

  it('follows daylight saving: a day of 23 hours in Berlin', () => {
    const period = resolvePeriod({ from: '2026-03-29', to: '2026-03-29', timeZone: 'Europe/Berlin', now: at('2026-04-02T12:00:00Z') });
    expect(period.startsAt.toISOString()).toBe('2026-03-28T23:00:00.000Z');
    expect(period.endsAt.toISOString()).toBe('2026-03-29T22:00:00.000Z');
    expect(zonedMidnight('2026-10-25', 'Europe/Berlin').toISOString()).toBe('2026-10-24T22:00:00.000Z');
    expect(zonedDate(at('2026-10-24T22:00:00Z'), 'Europe/Berlin')).toBe('2026-10-25');
  });

  it('starts a day at its first instant where the clocks change at midnight (Santiago, Havana)', () => {
    // 00:00 does not exist on these days: the clocks go from 23:59:59 to 01:00.
    expect(zonedMidnight('2026-09-06', 'America/Santiago').toISOString()).toBe('2026-09-06T04:00:00.000Z');
    expect(zonedMidnight('2026-03-08', 'America/Havana').toISOString()).toBe('2026-03-08T05:00:00.000Z');
    // Here 23:00-23:59 of the 4th happens twice: the 5th starts after the second time.
    expect(zonedMidnight('2026-04-05', 'America/Santiago').toISOString()).toBe('2026-04-05T04:00:00.000Z');
    const long = resolvePeriod({ from: '2026-04-04', to: '2026-04-04', timeZone: 'America/Santiago', now: at('2026-04-10T12:00:00Z') });
    expect(long.endsAt.getTime() - long.startsAt.getTime()).toBe(25 * 3_600_000);
    const short = resolvePeriod({ from: '2026-09-06', to: '2026-09-06', timeZone: 'America/Santiago', now: at('2026-09-10T12:00:00Z') });
    expect(short.endsAt.getTime() - short.startsAt.getTime()).toBe(23 * 3_600_000);
  });

  const refusal = (request: Parameters<typeof resolvePeriod>[0]) => {
    try {
      resolvePeriod(request);
    } catch (error) {
      expect(error).toBeInstanceOf(PeriodError);
      return { field: (error as PeriodError).field, message: (error as PeriodError).message };
    }
    throw new Error('not refused');
  };

  it("refuses, naming the input: not a date, backwards, in the future, past the upstream's 50 days, an unknown zone", () => {
    const now = at('2026-11-25T10:00:00Z');
    expect(refusal({ from: '2026-02-30', timeZone: 'UTC', now })).toEqual({
      field: 'from',
      message: 'from "2026-02-30" is not a date: use YYYY-MM-DD, such as 2026-11-24',
    });
    expect(refusal({ from: '25.11.2026', timeZone: 'UTC', now }).field).toBe('from');
    expect(refusal({ from: '2026-11-24', to: '2026-11-23', timeZone: 'UTC', now })).toEqual({
      field: 'from',
      message: 'from 2026-11-24 is after to 2026-11-23',
    });
    expect(refusal({ from: '2026-11-25', to: '2026-11-26', timeZone: 'UTC', now })).toEqual({
      field: 'to',
      message: 'to 2026-11-26 is in the future (today is 2026-11-25 in UTC)',
    });
    const old = refusal({ from: '2026-10-01', to: '2026-10-02', timeZone: 'UTC', now });
    expect(old.field).toBe('from');
    // The widened read starts a day earlier, which must still be inside the window.
    expect(old.message).toBe(
      'from 2026-10-01 is older than the upstream keeps payments (50 days): the earliest day that can be reconciled today is 2026-10-08',
    );
    expect(() => resolvePeriod({ from: '2026-10-08', timeZone: 'UTC', now })).not.toThrow();
    expect(refusal({ from: '2026-10-07', timeZone: 'UTC', now }).field).toBe('from');
    expect(refusal({ timeZone: 'Mars/Olympus', now }).field).toBe('timeZone');
  });
});
