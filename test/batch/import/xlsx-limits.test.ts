import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CsvFileError, type CsvRow } from '../../../src/batch/import/read/csv-reader.ts';
import { openPayrollFile } from '../../../src/batch/import/read/payroll-file.ts';
import { sharedStringsXml, sheetXml, xlsxWorkbook } from '../../support/xlsx-zip.ts';

/** Workbooks that unpack to far more than they weigh are refused while they inflate, never held. */

const MiB = 1024 * 1024;
const LIMIT = 8 * MiB;

// A sheet that comes before the shared strings waits in a temp file: this test's own folder, checked empty.
const spool = mkdtempSync(join(tmpdir(), 'xlsx-limits-test-'));
process.env.TMPDIR = spool;
afterAll(() => rmSync(spool, { recursive: true, force: true }));

async function* chunks(data: Buffer, size = 64 * 1024): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < data.length; i += size) yield data.subarray(i, i + size);
}

async function read(file: Buffer, maxBytes = LIMIT) {
  const payroll = await openPayrollFile(chunks(file), { maxBytes });
  const rows: CsvRow[] = [];
  for await (const row of payroll.rows) rows.push(row);
  return { payroll, rows };
}

async function problemsOf(file: Buffer, maxBytes = LIMIT) {
  try {
    await read(file, maxBytes);
  } catch (error) {
    if (error instanceof CsvFileError) return error.problems;
    throw error;
  }
  throw new Error('expected a CsvFileError');
}

/** `count` different strings of `size` characters: they deflate to almost nothing. */
function* longStrings(count: number, size: number): Generator<string> {
  for (let i = 0; i < count; i++) yield `${i} `.padEnd(size, 'a');
}

const header = ['provider', 'amount', 'account', 'description'];
const payrollRows = (count: number, description: (i: number) => string) =>
  (function* () {
    yield header;
    for (let i = 0; i < count; i++) yield ['sbp-b2c', 1 + i, `7900${String(i).padStart(7, '0')}`, description(i)];
  })();

describe('an .xlsx workbook that unpacks past the size limit', () => {
  it.each([
    ['before the sheet', true],
    ['after the sheet, as Excel writes it', false],
  ])('is refused when its shared strings (%s) unpack past it', async (_order, sharedStringsFirst) => {
    // 24 MiB of strings, 3 times the limit, in a file of a few hundred kilobytes.
    const file = xlsxWorkbook({
      sharedStrings: sharedStringsXml(longStrings(24 * 1024, 1024)),
      sheet: sheetXml([header.map((_, i) => ({ s: i }))]),
      sharedStringsFirst,
    });
    expect(file.length).toBeLessThan(LIMIT / 10);
    expect(await problemsOf(file)).toEqual([
      {
        line: null,
        column: null,
        code: 'file.too-large-unpacked',
        message: expect.stringMatching(/unpacks to more than 8388608 bytes.*xl\/sharedStrings\.xml/),
      },
    ]);
    expect(readdirSync(spool)).toEqual([]);
  });

  it.each([
    ['read as it inflates (the shared strings came first)', true],
    ['kept in a temp file until the shared strings come', false],
  ])('is refused when its sheet, %s, unpacks past it', async (_how, sharedStringsFirst) => {
    const file = xlsxWorkbook({
      sharedStrings: sharedStringsXml(['Зарплата']),
      sheet: sheetXml(payrollRows(80_000, () => 'x'.repeat(200))),
      sharedStringsFirst,
    });
    expect(file.length).toBeLessThan(LIMIT / 4);
    expect(await problemsOf(file)).toEqual([
      {
        line: null,
        column: null,
        code: 'file.too-large-unpacked',
        message: expect.stringMatching(/unpacks to more than 8388608 bytes.*xl\/worksheets\/sheet1\.xml/),
      },
    ]);
    expect(readdirSync(spool)).toEqual([]);
  });

  it('is refused when a few bytes of cells name one long shared string over and over', async () => {
    // 1 MiB of string, named by 20,000 cells: 20 GB of text from a sheet of under 1 MB.
    const file = xlsxWorkbook({
      sharedStrings: sharedStringsXml([...header, 'x'.repeat(MiB)]),
      sheet: sheetXml(
        (function* () {
          yield header.map((_, i) => ({ s: i }));
          for (let i = 0; i < 5_000; i++) yield [{ s: 4 }, { s: 4 }, { s: 4 }, { s: 4 }];
        })(),
      ),
      sharedStringsFirst: true,
    });
    expect(await problemsOf(file)).toEqual([
      {
        line: null,
        column: null,
        code: 'file.too-large-unpacked',
        message: expect.stringMatching(/cells hold more than 8388608 bytes of text/),
      },
    ]);
  });

  it('is refused when a row number is past the last row a sheet can have (its gap would be listed row by row)', async () => {
    const sheet = `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>provider</t></is></c><c r="B1" t="inlineStr"><is><t>amount</t></is></c></row><row r="2000000000"><c r="A2000000000" t="inlineStr"><is><t>sbp-b2c</t></is></c><c r="B2000000000"><v>1</v></c></row></sheetData></worksheet>`;
    expect(await problemsOf(xlsxWorkbook({ sheet }))).toEqual([
      { line: 2_000_000_000, column: null, code: 'file.format', message: expect.stringMatching(/1,048,576/) },
    ]);
  });
});

describe('an .xlsx workbook within the limit', () => {
  it('still reads the clerk’s workbook', async () => {
    const { rows } = await read(readFileSync(new URL('../../fixtures/payroll.xlsx', import.meta.url)));
    expect(rows).toHaveLength(4);
  });

  const names = Array.from({ length: 500 }, (_, i) => `Зарплата сотруднику №${i} — Ёлкина Юлия Эдуардовна`);
  it.each([
    ['shared strings', (i: number) => ({ s: i % 500 })],
    ['inline strings', (i: number) => names[i % 500]!],
  ])('keeps every Cyrillic letter of its %s, wherever the inflated chunks end', async (_kind, cell) => {
    // A chunk of inflated XML may end inside a two-byte letter: each must come out whole.
    const file = xlsxWorkbook({
      sharedStrings: sharedStringsXml(names),
      sheet: sheetXml(
        (function* () {
          yield header;
          for (let i = 0; i < 20_000; i++) yield ['sbp-b2c', 1, `7900${String(i).padStart(7, '0')}`, cell(i)];
        })(),
      ),
    });
    const { rows } = await read(file);
    expect(rows).toHaveLength(20_000);
    const wrong = rows.filter((row, i) => row.cells.description !== names[i % 500]);
    expect(wrong.map((row) => row.cells.description).slice(0, 3)).toEqual([]);
  });

  it('ends with the error of a source that fails halfway through a part, without waiting for the rest', async () => {
    const file = xlsxWorkbook({
      sharedStrings: sharedStringsXml(['a']),
      sheet: sheetXml(payrollRows(20_000, () => 'note')),
      sharedStringsFirst: true,
    });
    async function* failing(): AsyncGenerator<Uint8Array> {
      yield* chunks(file.subarray(0, Math.floor(file.length / 2)), 4096);
      throw new Error('the disk failed');
    }
    const read = async () => {
      const payroll = await openPayrollFile(failing(), { maxBytes: LIMIT });
      for await (const _ of payroll.rows);
    };
    await expect(read()).rejects.toThrow();
  });

  it('refuses a workbook cut short as not readable, without waiting for the rest', async () => {
    const file = xlsxWorkbook({ sharedStrings: sharedStringsXml(['a']), sheet: sheetXml(payrollRows(1_000, () => 'note')) });
    expect(await problemsOf(file.subarray(0, Math.floor(file.length * 0.6)))).toEqual([
      { line: null, column: null, code: 'file.format', message: expect.stringMatching(/not a readable \.xlsx workbook/) },
    ]);
  });
});
