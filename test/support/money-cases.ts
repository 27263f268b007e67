/**
 * The cases every money parse is held to: src/money/money.ts (signedToMinorUnits, the
 * server's one signed parse) in test/money/money.test.ts, and the page's own parse
 * (web/src/money.ts toMinor, which cannot share the server's: it reads a wider form, see
 * there) in test/web/page-money.test.ts.
 */

/** Amounts as the partner writes them, with or without a minus: every parse reads them the same. */
export const signedAmounts: ReadonlyArray<readonly [string, bigint]> = [
  ['0.00', 0n],
  ['0.01', 1n],
  ['1234.50', 123450n],
  ['9999999999999999.99', 999999999999999999n],
  ['-0.05', -5n],
  ['-1234.50', -123450n],
  ['-9999999999999999.99', -999999999999999999n],
];

/** Not an amount in any form: every parse refuses them. */
export const notAmounts: readonly string[] = [
  '',
  '-',
  '1e3',
  '1,00',
  '.50',
  '-.50',
  '1.500',
  '+1.00',
  '--1.00',
  '- 1.00',
  '1.-50',
  '1.00-',
  'abc',
  '0x10.00',
];

/**
 * What a person might type: no decimals, one decimal, a leading zero. The partner's form
 * (signedToMinorUnits) refuses them; the page's display parse reads them.
 */
export const typedAmounts: ReadonlyArray<readonly [string, bigint]> = [
  ['1', 100n],
  ['1.5', 150n],
  ['1500', 150000n],
  ['-1500.5', -150050n],
  ['01.00', 100n],
];
