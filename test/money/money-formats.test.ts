import { describe, expect, it } from 'vitest';
import { Prisma } from '../../src/db/generated/client.ts';
import { MoneyFormatError } from '../../src/money/money.ts';
import { amountInWords, groupedAmount, localAmount } from '../../src/money/money-text.ts';
import { decimalText, minorUnitsOf, moneyObject } from '../../src/money/money-wire.ts';

/**
 * The two formatters of money (issue 39 §6): for people (src/money/money-text.ts) and for
 * the wire (src/money/money-wire.ts). Exact outputs: the words the tests of messages, the
 * CLI and the page quote are made here.
 */
const decimal = (text: string) => new Prisma.Decimal(text);

describe('money for the wire', () => {
  it.each([
    [0n, '0.00'],
    [1n, '0.01'],
    [-5n, '-0.05'],
    [150050n, '1500.50'],
    [999_999_999_999_999_999n, '9999999999999999.99'],
  ])('writes %s minor units as %s', (minor, text) => {
    expect(decimalText(minor)).toBe(text);
  });

  it.each([
    ['0', '0.00'],
    ['0.01', '0.01'],
    ['1500.5', '1500.50'],
    ['1500.50', '1500.50'],
    ['-12', '-12.00'],
    ['9999999999999999.99', '9999999999999999.99'],
  ])("writes the database's decimal %s as %s, from its digits", (value, text) => {
    expect(decimalText(decimal(value))).toBe(text);
  });

  it("reads the database's decimal in minor units", () => {
    expect(minorUnitsOf(decimal('1234567890123456.78'))).toBe(123456789012345678n);
    expect(minorUnitsOf(decimal('-0.05'))).toBe(-5n);
  });

  it('refuses a decimal with more places than money has, rather than round it', () => {
    expect(() => decimalText(decimal('1.005'))).toThrow(MoneyFormatError);
  });

  it('takes a string as already written, and leaves nothing as nothing', () => {
    expect(decimalText('46950.60')).toBe('46950.60');
    expect(decimalText(null)).toBeNull();
    expect(decimalText(undefined)).toBeNull();
  });

  it('builds the Money object, value first', () => {
    const money = moneyObject(decimal('46950.6'), 'RUB');
    expect(money).toEqual({ value: '46950.60', currency: 'RUB' });
    expect(Object.keys(money)).toEqual(['value', 'currency']);
    expect(moneyObject(0n, 'RUB')).toEqual({ value: '0.00', currency: 'RUB' });
  });
});

describe('money for people', () => {
  it.each([
    ['0.00', '0.00 RUB'],
    ['0.01', '0.01 RUB'],
    ['999.99', '999.99 RUB'],
    ['1000.00', '1,000.00 RUB'],
    ['46950.60', '46,950.60 RUB'],
    ['-1234.56', '-1,234.56 RUB'],
    ['9999999999999999.99', '9,999,999,999,999,999.99 RUB'],
  ])('writes %s in a message as %s', (value, words) => {
    expect(amountInWords(value, 'RUB')).toBe(words);
  });

  it('writes minor units and the database decimal in a message the same way', () => {
    expect(amountInWords(0n, 'RUB')).toBe('0.00 RUB');
    expect(amountInWords(1n, 'RUB')).toBe('0.01 RUB');
    expect(amountInWords(4659473836n, 'RUB')).toBe('46,594,738.36 RUB');
    expect(amountInWords(decimal('1234567.5'), 'RUB')).toBe('1,234,567.50 RUB');
    expect(groupedAmount('1000000.00')).toBe('1,000,000.00');
  });

  it.each([
    ['0.00', '₽0.00'],
    ['0.01', '₽0.01'],
    ['1000.00', '₽1,000.00'],
    ['-0.05', '-₽0.05'],
    // 2^53 + 1 roubles: through a float it would end ...992.
    ['9007199254740993.01', '₽9,007,199,254,740,993.01'],
    // Wider than the database holds: the page's sums of many batches.
    ['99999999999999999999.99', '₽99,999,999,999,999,999,999.99'],
  ])('writes %s for an English reader as %s', (value, text) => {
    expect(localAmount(value, 'RUB', 'en-GB')).toBe(text);
  });

  it('writes minor units and the database decimal for a reader the same way', () => {
    expect(localAmount(1n, 'RUB', 'en-GB')).toBe('₽0.01');
    expect(localAmount(3550050n, 'RUB', 'en-GB')).toBe('₽35,500.50');
    expect(localAmount(decimal('35500.5'), 'RUB', 'en-GB')).toBe('₽35,500.50');
  });

  it("writes a Russian reader's grouping and symbol after the amount", () => {
    expect(localAmount('15000.00', 'RUB', 'ru-RU')).toMatch(/^15\s000,00\s₽$/);
  });
});
