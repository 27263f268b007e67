import { describe, expect, it } from 'vitest';
import { fileSource, importFixture, sampleFile, textSource } from '../../support/batch.ts';
import { testCardData } from '../../support/card-data.ts';
import { testDatabaseKinds } from '../../support/database.ts';
import { sharedStringsXml, sheetXml, xlsxWorkbook } from '../../support/xlsx-zip.ts';

describe.each(testDatabaseKinds())('batch import on $name', (kind) => {
  const fx = importFixture(kind, { maxRows: 50, maxBytes: 100_000 });
  const { problemsOf } = fx;

  it('validates the sample payroll file covering every provider', async () => {
    const batch = await fx.importer.import({
      source: fileSource(sampleFile('payroll-valid.csv')),
      fileName: 'payroll-valid.csv',
      uploadedBy: 'key:a',
    });
    expect(batch).toMatchObject({
      status: 'VALIDATED',
      rowCount: 10,
      validCount: 10,
      invalidCount: 0,
      warningCount: 1,
      name: 'payroll-valid.csv',
    });
    // Line 3's card number is written in groups of four: paid without the spaces, with a warning.
    expect((await problemsOf(batch.id)).map((p) => [p.line, p.column, p.code, p.severity])).toEqual([
      [3, 'pan', 'pan.normalised', 'warning'],
    ]);
    expect(batch.totalAmount.toFixed(2)).toBe('50950.60');
    expect(batch.fileHash).toMatch(/^[0-9a-f]{64}$/);
    const items = await fx.test.db.prisma.batchItem.findMany({ where: { batchId: batch.id }, orderBy: { line: 'asc' } });
    expect(items.map((i) => i.providerCode)).toEqual(
      expect.arrayContaining(['bank-card-russia', 'bank-card-russia-fio', 'bank-card-russia-gph', 'bank-card-token', 'sbp-b2c', 'sbp-fio']),
    );
    // Stored masked, with the full fields sealed beside (spaces of the card number removed).
    expect(items[1]).toMatchObject({
      line: 3,
      reference: 'EMP-002',
      paymentId: `${batch.id}-3`,
      status: 'PENDING',
      fields: expect.objectContaining({ pan: '2200********0004' }),
    });
    expect(testCardData().open(items[1]!.fields, { batchId: batch.id, line: 3 })).toMatchObject({
      pan: '2200000000000004',
      lastName: 'Petrova',
    });
    expect(items[1]!.amount.toFixed(2)).toBe('12500.50');
    expect(items[0]!.customFields).toEqual({ employeeId: '1001' });
  });

  it('reads the windows-1251 semicolon file a Russian-locale spreadsheet exports', async () => {
    const batch = await fx.importer.import({ source: fileSource(sampleFile('payroll-1251-semicolon.csv')) });
    expect(batch).toMatchObject({ status: 'VALIDATED', rowCount: 4, validCount: 4 });
    expect(batch.totalAmount.toFixed(2)).toBe('65846.17');
    const items = await fx.test.db.prisma.batchItem.findMany({ where: { batchId: batch.id }, orderBy: { line: 'asc' } });
    expect(items[0]!.fields).toMatchObject({ lastName: 'Иванов', description: 'Зарплата за ноябрь' });
    expect(items[3]!.fields).toMatchObject({ description: 'Аванс; 2-я часть' });
  });

  it('reports every kind of row error with its line, column and code', async () => {
    const batch = await fx.importer.import({ source: fileSource(sampleFile('payroll-errors.csv')) });
    expect(batch).toMatchObject({ status: 'REJECTED', rowCount: 18, validCount: 2 });
    const problems = (await problemsOf(batch.id)).map((p) => [p.line, p.column, p.code, p.severity]);
    expect(problems).toEqual([
      [2, 'provider', 'provider.unknown', 'error'],
      [3, 'amount', 'amount.format', 'error'],
      [4, 'amount', 'amount.format', 'error'],
      [5, 'amount', 'amount.format', 'error'],
      [6, 'amount', 'amount.format', 'error'],
      [7, 'amount', 'amount.limit', 'error'],
      [8, 'amount', 'amount.limit', 'error'],
      [9, 'currency', 'currency.unknown', 'error'],
      [10, 'firstName', 'field.required', 'error'],
      [11, 'pan', 'field.pattern', 'error'],
      [12, 'account', 'field.pattern', 'error'],
      [13, 'pan', 'field.not-for-provider', 'error'],
      [14, 'reference', 'reference.duplicate', 'error'],
      [15, 'provider', 'provider.missing', 'error'],
      [16, 'amount', 'amount.format', 'error'],
      [17, null, 'row.cells', 'error'],
      [19, null, 'row.similar', 'warning'],
    ]);
    const messages = await problemsOf(batch.id);
    expect(messages.find((p) => p.code === 'reference.duplicate')!.message).toBe('"ERR-12" is also on line 13');
    expect(messages.find((p) => p.line === 7)!.message).toMatch(/outside the sbp-b2c limits 10.00–1,000,000.00 RUB/);
  });

  it('refuses the same file again unless forced', async () => {
    const first = await fx.importer.import({ source: textSource('provider,amount,account\nbank-card-token,10.00,token_success\n') });
    expect(first.status).toBe('VALIDATED');
    const again = await fx.importer.import({ source: textSource('provider,amount,account\nbank-card-token,10.00,token_success\n') });
    expect(again.status).toBe('REJECTED');
    const [problem] = await problemsOf(again.id);
    expect(problem).toMatchObject({ line: null, code: 'file.duplicate', message: expect.stringContaining(first.id) });
    const forced = await fx.importer.import({
      source: textSource('provider,amount,account\nbank-card-token,10.00,token_success\n'),
      force: true,
    });
    expect(forced.status).toBe('VALIDATED');
  });

  it('warns of a total above the available balance, and leaves the decision to the approval', async () => {
    // Money is a state, not a fault of the file: a top-up before approval is enough, and
    // approval weighs the balance against every approved batch (test/batch/funds/pause-funds.test.ts).
    // Rejected, the file would have to be uploaded again, and its rows offered to "approve
    // the valid rows only", which a file-level error refuses.
    const rows = Array.from({ length: 3 }, (_, i) => `bank-card-token,90000.00,token_${i}`).join('\n');
    const batch = await fx.importer.import({ source: textSource(`provider,amount,account\n${rows}\n`) });
    expect(batch.status).toBe('VALIDATED');
    expect(await problemsOf(batch.id)).toMatchObject([
      { code: 'balance.insufficient', severity: 'warning', message: expect.stringMatching(/approval/) },
    ]);
  });

  it('refuses more rows than allowed', async () => {
    const rows = Array.from({ length: 51 }, (_, i) => `bank-card-token,1.00,tok_${i}`).join('\n');
    const batch = await fx.importer.import({ source: textSource(`provider,amount,account\n${rows}\n`) });
    expect(batch.status).toBe('REJECTED');
    expect((await problemsOf(batch.id)).map((p) => p.code)).toContain('file.too-many-rows');
  });

  it('refuses a file larger than allowed', async () => {
    const rows = Array.from({ length: 40 }, (_, i) => `bank-card-token,1.00,tok_${i},${'x'.repeat(3000)}`).join('\n');
    const batch = await fx.importer.import({ source: textSource(`provider,amount,account,description\n${rows}\n`) });
    expect((await problemsOf(batch.id)).map((p) => p.code)).toContain('file.too-large');
  });

  it('refuses unknown columns, naming them', async () => {
    const batch = await fx.importer.import({ source: textSource('provider,amount,iban\nsbp-b2c,1.00,DE00\n') });
    expect(batch.status).toBe('REJECTED');
    expect(await problemsOf(batch.id)).toEqual([expect.objectContaining({ line: 1, column: 'iban', code: 'column.unknown' })]);
  });

  it('refuses a file with a header and no rows', async () => {
    const batch = await fx.importer.import({ source: textSource('provider,amount\n') });
    expect((await problemsOf(batch.id)).map((p) => p.code)).toEqual(['file.no-rows']);
  });
});

const fixture = (name: string) => new URL(`../../fixtures/${name}`, import.meta.url).pathname;

describe.each(testDatabaseKinds())('the files clerks have, on $name', (kind) => {
  const fx = importFixture(kind, { maxRows: 50, maxBytes: 100_000 });
  const items = (batchId: string) => fx.test.db.prisma.batchItem.findMany({ where: { batchId }, orderBy: { line: 'asc' } });

  it.each([
    ['Excel "Unicode text": UTF-16 LE with a BOM, tab-separated', 'payroll-unicode-text.txt'],
    ['UTF-16 BE with a BOM, semicolon-separated', 'payroll-utf16be.csv'],
  ])('reads %s', async (_name, file) => {
    const batch = await fx.importer.import({ source: fileSource(fixture(file)), force: true });
    expect(batch).toMatchObject({ status: 'VALIDATED', rowCount: 4, validCount: 4, warningCount: 0 });
    expect(batch.totalAmount.toFixed(2)).toBe('34800.60');
    const rows = await items(batch.id);
    expect(rows.map((row) => [row.line, row.reference, row.amount.toFixed(2)])).toEqual([
      [2, 'ЗП-001', '15000.00'],
      [3, 'ЗП-002', '12500.50'],
      [4, 'ЗП-003', '3100.00'],
      [5, 'ЗП-004', '4200.10'],
    ]);
    expect(rows[1]!.fields).toMatchObject({ lastName: 'Петрова', firstName: 'Анна' });
  });

  it('skips the empty rows a spreadsheet exports (;;;;), counting them in a warning, not rejecting the file', async () => {
    const batch = await fx.importer.import({ source: fileSource(fixture('payroll-trailing-empty-rows.csv')), force: true });
    expect(batch).toMatchObject({ status: 'VALIDATED', rowCount: 3, validCount: 3, warningCount: 1 });
    expect(await fx.problemsOf(batch.id)).toEqual([
      expect.objectContaining({
        line: null,
        code: 'row.empty',
        severity: 'warning',
        message: '4 rows with no cell filled skipped (lines 4, 6, 7, 8)',
      }),
    ]);
    const report = await fx.importer.validate({ source: fileSource(fixture('payroll-trailing-empty-rows.csv')), force: true });
    expect(report).toMatchObject({ payable: true, rowCount: 3, emptyRowCount: 4 });
  });

  it('imports an .xlsx workbook: number cells as amounts, the sheet’s row numbers, its formatted empty row skipped', async () => {
    const batch = await fx.importer.import({ source: fileSource(fixture('payroll.xlsx')), fileName: 'payroll.xlsx', force: true });
    expect(batch).toMatchObject({ status: 'VALIDATED', rowCount: 4, validCount: 4 });
    expect(batch.totalAmount.toFixed(2)).toBe('34800.60');
    const rows = await items(batch.id);
    expect(rows.map((row) => [row.line, row.reference, row.amount.toFixed(2)])).toEqual([
      [2, 'ЗП-001', '15000.00'],
      [3, 'ЗП-002', '12500.50'],
      [4, 'ЗП-003', '3100.00'],
      [5, 'ЗП-004', '4200.10'],
    ]);
    expect(testCardData().open(rows[0]!.fields, { batchId: batch.id, line: 2 })).toMatchObject({
      pan: '2200000000000004',
      cardholder_name: 'IVAN',
    });
    expect((await fx.problemsOf(batch.id)).map((p) => [p.code, p.message])).toEqual([
      ['row.empty', '1 row with no cell filled skipped (line 6)'],
    ]);
  });

  it('tells an .xlsx by its content, whatever its name, and reports problems on the rows the spreadsheet shows', async () => {
    const batch = await fx.importer.import({ source: fileSource(fixture('payroll-errors.xlsx')), fileName: 'payroll.csv', force: true });
    expect(batch).toMatchObject({ status: 'REJECTED', rowCount: 4, validCount: 3 });
    expect((await fx.problemsOf(batch.id)).map((p) => [p.line, p.column, p.code])).toEqual([
      [5, 'provider', 'provider.unknown'],
      [null, null, 'row.empty'],
    ]);
    expect((await fx.problemsOf(batch.id)).find((p) => p.code === 'row.empty')!.message).toMatch(/lines 3, 7\)/);
  });

  it('says an amount written in words is not a number, naming it, in a CSV and in an .xlsx text cell', async () => {
    const csv = await fx.importer.import({
      source: textSource(
        'provider,amount,account\nbank-card-token,twelve,token_a\nbank-card-token,12e3,token_b\nbank-card-token,1500.50,token_c\n',
      ),
      force: true,
    });
    expect((await fx.problemsOf(csv.id)).map((p) => [p.line, p.column, p.code, p.message])).toEqual([
      [2, 'amount', 'amount.format', '"twelve" is not a number; write the amount in digits, such as 1500.00'],
      [3, 'amount', 'amount.format', '"12e3" is in exponent notation'],
    ]);
    // Excel keeps a word typed in a number column as a text cell (a shared string).
    const workbook = xlsxWorkbook({
      sharedStrings: sharedStringsXml(['provider', 'amount', 'account', 'bank-card-token', 'twelve']),
      sheet: sheetXml([
        [{ s: 0 }, { s: 1 }, { s: 2 }],
        [{ s: 3 }, { s: 4 }, '79001234567'],
        [{ s: 3 }, 1500.5, '79001234568'],
      ]),
    });
    const xlsx = await fx.importer.import({
      source: (async function* () {
        yield workbook;
      })(),
      fileName: 'payroll.xlsx',
      force: true,
    });
    expect(xlsx).toMatchObject({ status: 'REJECTED', rowCount: 2, validCount: 1 });
    expect((await fx.problemsOf(xlsx.id)).map((p) => [p.line, p.column, p.code, p.message])).toEqual([
      [2, 'amount', 'amount.format', '"twelve" is not a number; write the amount in digits, such as 1500.00'],
    ]);
  });

  it('refuses a zip that is not a workbook as a file problem', async () => {
    const zip = Buffer.from('504b0304140000000000000000000000000000000000000000000000000000', 'hex');
    const batch = await fx.importer.import({ source: textSource(zip.toString('latin1')), force: true });
    expect(batch.status).toBe('REJECTED');
    expect((await fx.problemsOf(batch.id)).map((p) => p.code)).toEqual(['file.format']);
  });
});
