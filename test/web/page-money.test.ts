import { describe, expect, it } from 'vitest';
import { localAmount } from '../../src/money/money-text.ts';
import { decimalText } from '../../src/money/money-wire.ts';
import { sumDecimals, toMinor } from '../../web/src/money.ts';
import { progressOf } from '../../web/src/progress.ts';
import { notAmounts, signedAmounts, typedAmounts } from '../support/money-cases.ts';

describe('the web page: money as decimal strings', () => {
  it('adds in kopecks, exactly, where floats would not', () => {
    expect(0.1 + 0.2).not.toBe(0.3);
    expect(sumDecimals(['0.10', '0.20'])).toBe('0.30');
    expect(sumDecimals(['99999999999999999.99', '0.01'])).toBe('100000000000000000.00');
    expect(sumDecimals([])).toBe('0.00');
    expect(toMinor('1500')).toBe(150000n);
    expect(toMinor('1500.5')).toBe(150050n);
    expect(decimalText(-5n)).toBe('-0.05');
    expect(() => toMinor('1e3')).toThrow(/not a decimal/);
  });

  it("reads the server's cases as the server does (test/support/money-cases.ts), and what a person types", () => {
    for (const [value, minor] of [...signedAmounts, ...typedAmounts]) expect(toMinor(value), value).toBe(minor);
    for (const [value, minor] of signedAmounts) expect(decimalText(minor)).toBe(value);
    for (const value of notAmounts) expect(() => toMinor(value), JSON.stringify(value)).toThrow(/not a decimal/);
  });

  it('formats the string itself for each language, never through a float', () => {
    // 2^53 + 1 roubles: a float would print ...992.
    expect(localAmount('9007199254740993.01', 'RUB', 'en-GB')).toBe('₽9,007,199,254,740,993.01');
    expect(localAmount('15000.00', 'RUB', 'ru-RU')).toMatch(/^15\s000,00\s₽$/);
  });
});

describe('the web page: progress of a batch', () => {
  const counts = (pairs: Array<[string, number, string]>) => pairs.map(([status, count, amount]) => ({ status, count, amount }));

  it('counts final rows as done, leaves invalid rows out, and reaches 100 % only at the end', () => {
    const running = progressOf(
      counts([
        ['COMPLETED', 199, '1990.00'],
        ['IN_PROGRESS', 1, '10.00'],
        ['INVALID', 5, '0.00'],
      ]),
    );
    expect(running).toMatchObject({ total: 200, done: 199, percent: 99, inFlight: 1, paid: { count: 199, amount: '1990.00' } });
    const done = progressOf(
      counts([
        ['COMPLETED', 7, '46950.60'],
        ['FAILED', 2, '2500.00'],
        ['NEEDS_REVIEW', 1, '1500.00'],
      ]),
    );
    expect(done).toMatchObject({ total: 10, done: 10, percent: 100, failed: { count: 3, amount: '4000.00' } });
    expect(progressOf([]).percent).toBe(0);
  });

  it('counts a cancelled batch\'s rows that were never paid apart, not as paid or failed (issue 37: "2000 of 2000 rows finished" with no line for them)', () => {
    const cancelled = progressOf(
      counts([
        ['COMPLETED', 218, '2190068.57'],
        ['FAILED', 8, '67234.12'],
        ['CANCELLED', 174, '4493735.31'],
      ]),
    );
    expect(cancelled).toMatchObject({
      total: 400,
      done: 400,
      paid: { count: 218 },
      failed: { count: 8 },
      cancelled: { count: 174, amount: '4493735.31' },
    });
  });
});
