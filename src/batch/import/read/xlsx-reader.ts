import { Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import { CsvFileError, headerColumns, type CsvRow, type PayrollRows } from './csv-reader.ts';
import { BoundedWorkbookReader } from './xlsx-workbook.ts';

/** The last row of an Excel worksheet. */
const MAX_ROW = 1_048_576;

/** What exceljs gives for a cell: its value as typed in the sheet. */
type CellValue = ExcelJS.CellValue;

/**
 * Opens the first worksheet of an .xlsx workbook as payroll rows, streaming (exceljs'
 * worksheet reader: the sheet is read row by row; only the shared strings table is held,
 * packed), never unpacking more than `maxBytes` (see BoundedWorkbookReader).
 * The first row with a cell filled is the header; every row keeps the number the
 * spreadsheet shows, so problems point where the person looks. Cells are read as the text
 * they hold: numbers in their shortest decimal form (1500.5, 79001234567), a formula by
 * its result; the same validation as a CSV file follows.
 */
export async function openPayrollXlsx(source: AsyncIterable<Uint8Array>, options: { maxBytes: number }): Promise<PayrollRows> {
  const input = Readable.from(source, { objectMode: false });
  const workbook = new BoundedWorkbookReader(input, options.maxBytes);
  const sheets = workbook[Symbol.asyncIterator]();
  const close = () => {
    input.destroy();
    void sheets.return?.(undefined)?.catch(() => {});
  };
  let rowsOfSheet: AsyncIterator<ExcelJS.Row>;
  let header: { number: number; columns: string[] };
  try {
    const sheet = await sheets.next().catch((error: unknown) => {
      throw notAWorkbook(error);
    });
    if (sheet.done === true)
      throw new CsvFileError([{ line: null, column: null, code: 'file.format', message: 'the workbook has no worksheet' }]);
    rowsOfSheet = (sheet.value as unknown as AsyncIterable<ExcelJS.Row>)[Symbol.asyncIterator]();
    let first: ExcelJS.Row | undefined;
    for (;;) {
      const next = await rowsOfSheet.next();
      if (next.done === true) break;
      if (cellsOf(next.value).some((cell) => cell !== '')) {
        first = next.value;
        break;
      }
    }
    if (first === undefined)
      throw new CsvFileError([{ line: 1, column: null, code: 'file.empty', message: 'the first worksheet has no header row' }]);
    header = { number: first.number, columns: headerColumns(trimTrailing(cellsOf(first))) };
  } catch (error) {
    close();
    throw error;
  }

  const empty: number[] = [];
  const { columns } = header;
  async function* rows(): AsyncGenerator<CsvRow> {
    try {
      let previous = header.number;
      for (;;) {
        const next = await rowsOfSheet.next();
        if (next.done === true) return;
        const row = next.value;
        // Each row skipped is listed: a row number past any a sheet can have would list billions from a few bytes.
        if (row.number > MAX_ROW) {
          throw new CsvFileError([
            {
              line: row.number,
              column: null,
              code: 'file.format',
              message: `row ${row.number} is past the last row a worksheet can have (1,048,576)`,
            },
          ]);
        }
        // Rows with nothing in them are not in the file at all; those between count as empty too.
        for (let skipped = previous + 1; skipped < row.number; skipped++) empty.push(skipped);
        previous = row.number;
        const values = cellsOf(row);
        const cells: Record<string, string> = {};
        let filled = false;
        let beyond = 0;
        values.forEach((value, index) => {
          if (value === '') return;
          filled = true;
          const column = columns[index];
          if (column === undefined) beyond = index + 1;
          else if (column !== '') cells[column] = value;
        });
        if (!filled) {
          empty.push(row.number);
          continue;
        }
        yield beyond === 0 ? { line: row.number, cells } : { line: row.number, cells, cellCount: beyond, headerCells: columns.length };
      }
    } catch (error) {
      throw notAWorkbook(error);
    } finally {
      close();
    }
  }
  return { columns, rows: rows(), emptyRows: () => empty };
}

/** The row's cells from column A, as trimmed text ('' for an empty cell). */
function cellsOf(row: ExcelJS.Row): string[] {
  // exceljs' values are 1-based: index 0 is always empty.
  const values = row.values as CellValue[];
  const cells: string[] = [];
  for (let column = 1; column < values.length; column++) cells.push(textOf(values[column]).trim());
  return cells;
}

function trimTrailing(cells: string[]): string[] {
  let end = cells.length;
  while (end > 0 && cells[end - 1] === '') end--;
  return cells.slice(0, end);
}

function textOf(value: CellValue | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return numberText(value);
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  if ('richText' in value) return value.richText.map((part) => part.text).join('');
  if ('formula' in value || 'sharedFormula' in value) return textOf((value as { result?: CellValue }).result);
  if ('text' in value) return textOf((value as { text: CellValue }).text);
  if ('error' in value) return String(value.error);
  return '';
}

/**
 * A number cell's text. Money in a spreadsheet is a binary fraction: 1500.5 is exact, a
 * computed 0.1 + 0.2 is 0.30000000000000004. A value within rounding noise of two
 * decimals is written with them, as the sheet shows it; any other keeps all its digits
 * (and is then refused as having too many decimals, not silently rounded).
 */
function numberText(value: number): string {
  if (Number.isInteger(value)) return String(value);
  const cents = Math.round(value * 100) / 100;
  return Math.abs(cents - value) <= Math.abs(value) * 1e-12 ? String(cents) : String(value);
}

function notAWorkbook(error: unknown): unknown {
  if (error instanceof CsvFileError) return error;
  return new CsvFileError([
    {
      line: null,
      column: null,
      code: 'file.format',
      message: 'the file is a zip archive but not a readable .xlsx workbook; save it from Excel as .xlsx or as CSV UTF-8',
    },
  ]);
}
