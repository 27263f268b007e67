import { describe, expect, it } from 'vitest';
import { parseCsvAmount } from '../../../src/batch/import/read/csv-amount.ts';

describe('CSV amounts', () => {
  it.each([
    ['1500', '1500.00'],
    ['1500.5', '1500.50'],
    ['1500,50', '1500.50'],
    ['1 500,50', '1500.50'],
    ['1\u00A0500.50', '1500.50'],
    ['12\u202F345\u202F678,90', '12345678.90'],
    [' 0.01 ', '0.01'],
    ['007.00', '7.00'],
  ])('reads %j as %s', (raw, value) => {
    expect(parseCsvAmount(raw)).toEqual({ value });
  });

  it.each([
    ['', /empty/],
    ['-100.00', /sign/],
    ['+100', /sign/],
    ['1e3', /exponent/],
    ['1,5E+3', /exponent/],
    ['twelve', /^"twelve" is not a number/],
    ['one hundred', /^"one hundred" is not a number/],
    ['-twelve', /not a number/],
    ['12 euro', /not a number/],
    ['1.500,00', /more than one/],
    ['1,500.00', /more than one/],
    ['100.123', /could be read two ways, as 100\.123 or as 100123/],
    ['1500.123', /^"1500\.123" has more than two decimals/],
    ['1,500', /^"1,500" could be read two ways, as 1\.500 or as 1500: write 1500\.00 for one thousand five hundred/],
    ['12.345', /^"12\.345" could be read two ways, as 12\.345 or as 12345: write 12345\.00 for 12345,/],
    ['0,500', /^"0,500" has more than two decimals/],
    ['1 50', /not a number/],
    ['15 00,00', /not a number/],
    ['abc', /not a number/],
    ['12345678901234567.00', /too large/],
  ])('refuses %j', (raw, message) => {
    const result = parseCsvAmount(raw);
    expect(result).toHaveProperty('error');
    expect((result as { error: string }).error).toMatch(message);
  });
});
