import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { CsvFileError, openPayrollCsv, type CsvRow } from '../../../src/batch/import/read/csv-reader.ts';

async function* chunks(data: Buffer, size = 7): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < data.length; i += size) yield data.subarray(i, i + size);
}

async function read(data: Buffer | string, maxBytes = 1_000_000) {
  const buffer = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const csv = await openPayrollCsv(chunks(buffer), { maxBytes });
  const rows: CsvRow[] = [];
  for await (const row of csv.rows) rows.push(row);
  return { csv, rows };
}

async function fileError(data: Buffer | string, maxBytes?: number) {
  try {
    await read(data, maxBytes);
  } catch (error) {
    if (error instanceof CsvFileError) return error.problems;
    throw error;
  }
  throw new Error('expected a CsvFileError');
}

describe('payroll CSV reading', () => {
  it('reads UTF-8 with a BOM, comma-separated, CRLF, with line numbers', async () => {
    const { csv, rows } = await read(
      '\uFEFFreference,provider,amount,account,bankId\r\nr1,sbp-b2c,100.00,79001234567,b1\r\nr2,SBP-B2C,5,79001234568,b2\r\n',
    );
    expect(csv).toMatchObject({ encoding: 'utf-8', delimiter: ',', columns: ['reference', 'provider', 'amount', 'account', 'bankId'] });
    expect(rows).toEqual([
      { line: 2, cells: { reference: 'r1', provider: 'sbp-b2c', amount: '100.00', account: '79001234567', bankId: 'b1' } },
      { line: 3, cells: { reference: 'r2', provider: 'SBP-B2C', amount: '5', account: '79001234568', bankId: 'b2' } },
    ]);
    expect(csv.digest().sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('detects windows-1251 and semicolons, as a Russian-locale spreadsheet saves', async () => {
    const text = 'provider;amount;pan;lastName;firstName;purpose\r\nbank-card-russia-gph;1 500,50;2200000000000004;Иванов;Иван;Дизайн\r\n';
    const { csv, rows } = await read(iconv.encode(text, 'win1251'));
    expect(csv).toMatchObject({ encoding: 'windows-1251', delimiter: ';' });
    expect(rows[0]!.cells).toMatchObject({ amount: '1 500,50', lastName: 'Иванов', purpose: 'Дизайн' });
  });

  it('detects tabs, LF line ends and header names in any case', async () => {
    const { csv, rows } = await read('PROVIDER\tAmount\tBANKID\taccount\nsbp-b2c\t10\tb\t79001234567\n');
    expect(csv.delimiter).toBe('\t');
    expect(csv.columns).toEqual(['provider', 'amount', 'bankId', 'account']);
    expect(rows).toHaveLength(1);
  });

  it('keeps quoted delimiters, quotes and newlines inside a cell, and numbers lines by where rows start', async () => {
    const { rows } = await read(
      'provider,amount,account,description\nbank-card-token,10,t1,"Salary, ""November""\nsecond line"\nbank-card-token,20,t2,plain\n',
    );
    expect(rows[0]).toEqual({
      line: 2,
      cells: { provider: 'bank-card-token', amount: '10', account: 't1', description: 'Salary, "November"\nsecond line' },
    });
    expect(rows[1]!.line).toBe(4);
  });

  it('skips blank lines but keeps counting them', async () => {
    const { rows } = await read('provider,amount\n\nsbp-b2c,1\n');
    expect(rows).toEqual([{ line: 3, cells: { provider: 'sbp-b2c', amount: '1' } }]);
  });

  it.each([
    ['LE', (text: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')])],
    ['BE', (text: string) => Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()])],
  ])('reads UTF-16 %s with a BOM (Excel "Unicode text"), tab-separated, Cyrillic kept', async (name, encode) => {
    const { csv, rows } = await read(encode('provider\tamount\tlastName\r\nsbp-b2c\t1,50\tИванов\r\nsbp-b2c\t2\tПетрова\r\n'));
    expect(csv).toMatchObject({ encoding: `utf-16${name.toLowerCase()}`, delimiter: '\t', columns: ['provider', 'amount', 'lastName'] });
    expect(rows).toEqual([
      { line: 2, cells: { provider: 'sbp-b2c', amount: '1,50', lastName: 'Иванов' } },
      { line: 3, cells: { provider: 'sbp-b2c', amount: '2', lastName: 'Петрова' } },
    ]);
  });

  it('skips rows whose cells are all empty, as spreadsheets export them, and lists their lines', async () => {
    const { csv, rows } = await read(
      'provider;amount;account\r\nsbp-b2c;1;79001234567\r\n;;\r\n ; ;\r\nsbp-b2c;2;79001234568\r\n;;\r\n\r\n',
    );
    expect(rows.map((row) => row.line)).toEqual([2, 5]);
    expect(csv.emptyRows()).toEqual([3, 4, 6, 7]);
  });

  it('marks a row with the wrong number of cells', async () => {
    const { rows } = await read('provider,amount\nsbp-b2c,1,extra\n');
    expect(rows[0]).toMatchObject({ line: 2, cellCount: 3 });
  });

  it('accepts custom.<key> columns', async () => {
    const { csv, rows } = await read('provider,amount,custom.employeeId\nsbp-b2c,1,E-7\n');
    expect(csv.columns).toContain('custom.employeeId');
    expect(rows[0]!.cells['custom.employeeId']).toBe('E-7');
  });

  it('refuses unknown, repeated and missing columns, naming each', async () => {
    const problems = await fileError('provider,provider,salary,iban\nx,y,z,w\n');
    expect(problems).toEqual([
      { line: 1, column: 'provider', code: 'column.duplicate', message: expect.stringMatching(/twice/) },
      { line: 1, column: 'salary', code: 'column.unknown', message: expect.stringMatching(/unknown column "salary"/) },
      { line: 1, column: 'iban', code: 'column.unknown', message: expect.stringMatching(/unknown column "iban"/) },
      { line: 1, column: 'amount', code: 'column.missing', message: expect.stringMatching(/no "amount"/) },
    ]);
  });

  it('refuses an empty file', async () => {
    expect((await fileError(''))[0]!.code).toBe('file.empty');
  });

  it('refuses an unclosed quote with its line', async () => {
    const problems = await fileError('provider,amount\nsbp-b2c,"1\n');
    expect(problems[0]).toMatchObject({ code: 'csv.syntax' });
  });

  it('names the line and column of a quote inside an unquoted cell, never echoing the cell', async () => {
    const problems = await fileError('provider,amount,pan\nbank-card-russia,1,2200000000000004\nbank-card-russia,1,4276123456789012"x\n');
    expect(problems).toEqual([{ line: 3, column: 'pan', code: 'csv.syntax', message: expect.stringMatching(/quote/) }]);
    expect(JSON.stringify(problems)).not.toContain('4276123456789012');
  });

  it('names the line where a never-closed quote opens', async () => {
    const problems = await fileError('provider,amount\nsbp-b2c,1\nsbp-b2c,"1\n\nsbp-b2c,2\n');
    expect(problems[0]).toMatchObject({ line: 3, code: 'csv.syntax' });
  });

  it.each([
    ['UTF-16LE without a BOM', Buffer.from('provider,amount\nsbp-b2c,1\n', 'utf16le')],
    ['UTF-32LE with a BOM', Buffer.concat([Buffer.from([0xff, 0xfe, 0, 0]), Buffer.from('p\u0000\u0000\u0000', 'latin1')])],
    [
      'UTF-16LE with a BOM and a NUL character',
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('provider,amount,description\nsbp-b2c,1,a\u0000b\n', 'utf16le')]),
    ],
    ['a NUL byte in a cell', Buffer.from('provider,amount,description\nsbp-b2c,1,a\u0000b\n')],
    ['a NUL byte after the first 64 KiB', Buffer.from(`provider,amount,description\n${'sbp-b2c,1,ok\n'.repeat(6_000)}sbp-b2c,1,\u0000\n`)],
  ])('refuses %s as an encoding problem', async (_name, data) => {
    expect((await fileError(data))[0]).toMatchObject({ code: 'file.encoding' });
  });

  it('refuses a header with absurdly many columns as one problem', async () => {
    const problems = await fileError(`provider,amount,${'x,'.repeat(200_000)}y\nsbp-b2c,1\n`, 10_000_000);
    expect(problems).toEqual([{ line: 1, column: null, code: 'column.too-many', message: expect.stringMatching(/200003 columns/) }]);
  });

  it('refuses a file over the size limit while streaming', async () => {
    const big = `provider,amount\n${'sbp-b2c,1\n'.repeat(20_000)}`;
    expect((await fileError(big, 100_000))[0]).toMatchObject({ code: 'file.too-large' });
  });

  it('refuses UTF-8 that turns invalid after the first 64 KiB', async () => {
    const start = Buffer.from(`provider,amount,description\n${'sbp-b2c,1,ok\n'.repeat(6_000)}`, 'utf8');
    const broken = Buffer.concat([start, Buffer.from([0x73, 0x62, 0x70, 0x2c, 0x31, 0x2c, 0xc3, 0x28, 0x0a])]);
    expect((await fileError(broken))[0]).toMatchObject({ code: 'file.encoding' });
  });
});
