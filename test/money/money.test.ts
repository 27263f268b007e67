import { describe, expect, it } from 'vitest';
import { basisPoints, fromMinorUnits, MoneyFormatError, signedToMinorUnits, toMinorUnits } from '../../src/money/money.ts';
import { notAmounts, signedAmounts, typedAmounts } from '../support/money-cases.ts';

describe('money', () => {
  it.each([
    ['0.00', 0n],
    ['0.01', 1n],
    ['1234.50', 123450n],
    ['9999999999999999.99', 999999999999999999n],
  ])('reads %s as %s minor units and writes it back', (value, minor) => {
    expect(toMinorUnits(value)).toBe(minor);
    expect(fromMinorUnits(minor)).toBe(value);
  });

  it.each(['1', '1.5', '1.500', '01.00', '-1.00', '1,00', ' 1.00', '1e3', '', '.50'])('refuses %j', (value) => {
    expect(() => toMinorUnits(value)).toThrow(MoneyFormatError);
  });

  it('writes negative balances with a sign', () => {
    expect(fromMinorUnits(-5n)).toBe('-0.05');
  });

  it('rounds fees up to the next minor unit', () => {
    expect(basisPoints(100n, 150n)).toBe(2n); // 1.5% of 1.00 = 0.015 -> 0.02
    expect(basisPoints(10_000n, 150n)).toBe(150n);
  });
});

describe("money with a sign (the partner's balance)", () => {
  it.each(signedAmounts)('reads %s as %s minor units and writes it back', (value, minor) => {
    expect(signedToMinorUnits(value)).toBe(minor);
    expect(fromMinorUnits(minor)).toBe(value);
  });

  it.each([...notAmounts, ...typedAmounts.map(([value]) => value)])('refuses %j', (value) => {
    expect(() => signedToMinorUnits(value)).toThrow(MoneyFormatError);
  });

  it('reads what the unsigned form reads the same', () => {
    for (const [value, minor] of signedAmounts.filter(([, minor]) => minor >= 0n)) expect(toMinorUnits(value)).toBe(minor);
  });
});
