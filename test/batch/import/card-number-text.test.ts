import { describe, expect, it } from 'vitest';
import { csvChunks, problemRows, resultRows } from '../../../src/batch/export/batch-export.ts';
import { cardNumbersIn } from '../../../src/log/card-numbers.ts';
import { validateRow } from '../../../src/batch/import/validate-row.ts';
import type { ProviderDetails } from '../../../src/payments/provider-catalogue.ts';
import { sandboxProviders } from '../../../src/sandbox/catalogue.ts';
import { importFixture, textSource } from '../../support/batch.ts';
import { testDatabaseKinds } from '../../support/database.ts';

const providers = new Map<string, ProviderDetails>(
  sandboxProviders.map((p) => [p.code, { code: p.code, name: p.info.name, info: p.info }]),
);

/** Luhn-valid: 16 digits (two), 13 digits, 19 digits. */
const CARDS = ['4111111111111111', '5555555555554444', '4012888888881', '6222021000000000009'];

/** Any of CARDS in a text, however its digits are grouped: a check that does not use the code under test. */
function cardsIn(text: string): string[] {
  const bare = text.replace(/[ \u00A0.-]/g, '');
  return CARDS.filter((card) => bare.includes(card));
}

const json = (value: unknown) => JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? String(v) : v));

const grouped = (digits: string, separator: string) => digits.replace(/(\d{4})(?=\d)/g, `$1${separator}`);

/** A payable bank-card-russia row, with the given cells changed. */
const row = (cells: Record<string, string>) =>
  validateRow(
    {
      line: 7,
      cells: {
        reference: 'R-7',
        provider: 'bank-card-russia',
        amount: '10.00',
        pan: '2200000000000004',
        cardholder_name: 'ANNA',
        ...cells,
      },
    },
    providers,
  );

describe('a card number in a free-text cell of a payroll row', () => {
  const cases: Array<[string, string, string, string]> = [
    ['a reference', 'reference', '4111111111111111', 'reference.card-number'],
    ['a description', 'description', 'Pay to card 4111111111111111', 'field.card-number'],
    ['a description with spaces', 'description', `to ${grouped(CARDS[1]!, ' ')} please`, 'field.card-number'],
    ['a description with dashes', 'description', grouped(CARDS[0]!, '-'), 'field.card-number'],
    ['a description with dots', 'description', `card ${grouped(CARDS[0]!, '.')}.`, 'field.card-number'],
    ['a description with no-break spaces', 'description', grouped(CARDS[1]!, '\u00A0'), 'field.card-number'],
    ['13 digits', 'reference', `INV ${CARDS[2]}`, 'reference.card-number'],
    ['19 digits, grouped', 'description', grouped(CARDS[3]!, ' '), 'field.card-number'],
    ['a card followed by an amount', 'description', `${CARDS[0]} 1500.00`, 'field.card-number'],
    ['a name', 'cardholder_name', CARDS[0]!, 'field.card-number'],
    ['a custom cell', 'custom.note', 'paid to 4111-1111-1111-1111 ok', 'custom.card-number'],
  ];

  it.each(cases)('refuses %s, naming the column, with the number masked', (_case, column, value, code) => {
    const { valid, problems } = row({ [column]: value });
    expect(valid).toBeUndefined();
    // One problem: a name holding a card number is not also reported against its pattern.
    expect(problems).toEqual([
      {
        line: 7,
        column,
        code,
        severity: 'error',
        message: expect.stringMatching(/^holds what looks like a card number \(\d{4}\*+\d{4}\); card numbers go only in pan/),
      },
    ]);
    expect(cardsIn(JSON.stringify(problems))).toEqual([]);
    expect(JSON.stringify(problems)).not.toMatch(/\d{5}/);
  });

  it('refuses it whatever else is wrong with the row', () => {
    const { problems } = validateRow(
      { line: 3, cells: { provider: 'no-such', amount: 'x', description: CARDS[0]!, reference: CARDS[1]! } },
      providers,
    );
    expect(problems.map((p) => `${p.column}:${p.code}`)).toEqual(
      expect.arrayContaining(['reference:reference.card-number', 'description:field.card-number', 'provider:provider.unknown']),
    );
    expect(cardsIn(JSON.stringify(problems))).toEqual([]);
  });

  it('passes a 20-digit bank account, a 16-digit id failing the checksum, short numbers, and the card in pan', () => {
    for (const other of [
      '40817810099910004312',
      '40817810099910004317',
      '4081 7810 0999 1000 4317',
      '4111111111111112',
      '4111-1111-1111-1112',
      'Order 123456789012',
      '1001',
    ]) {
      for (const column of ['reference', 'description', 'custom.note']) {
        const { valid, problems } = row({ [column]: other });
        expect(problems, `${column}: ${other}`).toEqual([]);
        expect(valid).toBeDefined();
      }
    }
    expect(row({ pan: grouped(CARDS[0]!, ' ') }).valid?.fields.pan).toBe(CARDS[0]);
  });

  it('passes a UUID whose leading groups happen to be digits that pass the checksum', () => {
    // The sandbox's transactionId is such a UUID now and then ("78708809-1403-0…"): its
    // 8-, 4- and 1-digit groups read as 13 grouped digits, and one in ten passes Luhn.
    const digits = '787088091403';
    const check = [...'0123456789'].find((d) => cardNumbersIn(digits + d).length > 0)!;
    expect(cardNumbersIn(`${digits}${check}`)).toEqual([`${digits}${check}`]);
    const uuid = `${digits.slice(0, 8)}-${digits.slice(8)}-${check}abc-8def-0123456789ab`;
    expect(cardNumbersIn(uuid)).toEqual([]);
    expect(cardNumbersIn(`tx ${uuid} to ${CARDS[0]}`)).toEqual([CARDS[0]]);
    for (const column of ['reference', 'description', 'custom.note']) expect(row({ [column]: uuid }).problems, column).toEqual([]);
  });
});

describe.each(testDatabaseKinds())('a payroll file with card numbers in its text on $name', (kind) => {
  const fx = importFixture(kind);
  const csv = [
    'reference,provider,amount,pan,cardholder_name,description,custom.note',
    'OK-1,bank-card-russia,10.00,2200000000000004,ANNA,November salary,E-1',
    '4111111111111111,bank-card-russia,11.00,2200000000000004,ANNA,,',
    'R-3,bank-card-russia,12.00,2200000000000004,ANNA,Pay to card 4111 1111 1111 1111,',
    'R-4,bank-card-russia,13.00,2200000000000004,ANNA,,4111-1111-1111-1111',
    'R-5,bank-card-russia,14.00,2200000000000004,ANNA,card 5555.5555.5555.4444,',
    `R-6,bank-card-russia,15.00,2200000000000004,ANNA,${CARDS[2]},${CARDS[3]}`,
    'R-7,bank-card-russia,16.00,2200000000000004,ANNA,account 40817810099910004312,4111111111111112',
  ].join('\n');

  it('refuses the rows, stores only masked problems, and exports no card number', async () => {
    const batch = await fx.importer.import({ source: textSource(`${csv}\n`) });
    expect(batch).toMatchObject({ status: 'REJECTED', rowCount: 7, validCount: 2 });
    const problems = await fx.problemsOf(batch.id);
    expect(problems.map((p) => `${p.line}:${p.column}:${p.code}`)).toEqual([
      '3:reference:reference.card-number',
      '4:description:field.card-number',
      '5:custom.note:custom.card-number',
      '6:description:field.card-number',
      '7:description:field.card-number',
      '7:custom.note:custom.card-number',
    ]);
    expect(problems.find((p) => p.line === 4)!.message).toContain('(4111********1111)');
    expect(cardsIn(json(problems))).toEqual([]);

    const items = await fx.test.db.prisma.batchItem.findMany({ where: { batchId: batch.id }, orderBy: { line: 'asc' } });
    expect(items.map((i) => i.reference)).toEqual(['OK-1', 'R-7']);
    expect(items[1]!.customFields).toEqual({ note: '4111111111111112' });
    expect(cardsIn(json(items))).toEqual([]);

    let results = '';
    for await (const chunk of csvChunks(resultRows(fx.test.db.prisma, batch.id))) results += chunk;
    let report = '';
    for await (const chunk of csvChunks(problemRows(fx.test.db.prisma, batch.id))) report += chunk;
    expect(results).toContain('OK-1');
    expect(report).toContain('reference.card-number');
    expect(cardsIn(results)).toEqual([]);
    expect(cardsIn(report)).toEqual([]);
  });

  it('keeps a card number typed into the batch name or file name masked', async () => {
    const batch = await fx.importer.import({
      source: textSource('provider,amount,account\nbank-card-token,17.00,token_name_test\n'),
      name: 'Pay 4111 1111 1111 1111',
      fileName: '4111111111111111.csv',
    });
    expect(batch.name).toBe('Pay 4111********1111');
    expect(batch.fileName).toBe('4111********1111.csv');
  });
});
