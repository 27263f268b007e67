import { createHash } from 'node:crypto';
import { CsvError, parse, type Parser } from 'csv-parse';
import { redactCardNumbers } from '../../../log/card-numbers.ts';
import { columnFor, MAX_COLUMNS, requiredColumns } from './csv-columns.ts';
import { asUtf8, detectEncoding, EncodingError, headText, type Encoding } from './text-decoding.ts';
import { GatewayError } from '../../../lib/gateway-error.ts';

export type { Encoding } from './text-decoding.ts';

export interface FileProblem {
  line: number | null;
  column: string | null;
  code: string;
  message: string;
}

/** The file cannot be read as a payroll file at all; every reason is listed. */
export class CsvFileError extends GatewayError {
  /** The file as a whole; each problem has its own code (file.empty, csv.syntax, …). */
  readonly code = 'file.invalid';
  readonly kind = 'input';
  constructor(readonly problems: FileProblem[]) {
    super(problems.map((p) => (p.line === null ? p.message : `line ${p.line}: ${p.message}`)).join('; '));
    this.name = 'CsvFileError';
  }
}

export interface CsvRow {
  /** The file line the row starts on (the header is line 1); the spreadsheet's row number for XLSX. */
  line: number;
  /** Cells by canonical column name, trimmed; empty cells left out. */
  cells: Record<string, string>;
  /** Set when the row has another number of cells than the header. */
  cellCount?: number;
  /** With cellCount: how many the header has. */
  headerCells?: number;
  /** With cellCount: the amount as written when an unquoted comma split it into two cells: a decimal comma ("1 000,50") or a thousands one ("1,500"). */
  splitAmount?: string;
  /** Which comma split it. */
  splitAt?: 'decimal' | 'thousands';
}

export type Delimiter = ',' | ';' | '\t';

/** A payroll file opened for reading, whatever its format: header checked, rows to come. */
export interface PayrollRows {
  columns: string[];
  rows: AsyncGenerator<CsvRow>;
  /**
   * The same rows, those of each piece of input at once: a reader takes one of the two. Two
   * async generators' promises per row were about 5 % of an import's CPU (profiled).
   */
  batches?: AsyncGenerator<CsvRow[]>;
  /** Lines of rows with no cell filled (`;;;;`, a blank line), skipped; known once `rows` is done. */
  emptyRows(): number[];
}

export interface PayrollCsv extends PayrollRows {
  encoding: Encoding;
  delimiter: Delimiter;
  /** Size and sha256 of the bytes read so far (the whole file once `rows` is done). */
  digest(): { bytes: number; sha256: string };
}

/** Bytes handed to csv-parse at once, so a batch of rows is a few dozen (parsedRecords). */
const PARSE_SLICE = 4 * 1024;

/** Enough of the file to tell its encoding and read its header. */
const HEAD_BYTES = 64 * 1024;

/** A record with the line csv-parse had reached when it was parsed (its last line). */
type ParsedRecord = string[] & { end?: number };

/**
 * Opens a payroll CSV as spreadsheets save it: UTF-8 with or without BOM, UTF-16 LE or BE
 * with a BOM (Excel's "Unicode text"), or windows-1251 (told apart by whether the first
 * 64 KiB are valid UTF-8); `,`, `;` or tab as delimiter (whichever the header line has
 * most of); CRLF or LF. Rows whose cells are all empty are skipped and their lines kept
 * (`emptyRows`). The rest of the file is read as a stream, so memory does not grow with it.
 */
export async function openPayrollCsv(source: AsyncIterable<Uint8Array>, options: { maxBytes: number }): Promise<PayrollCsv> {
  const iterator = source[Symbol.asyncIterator]();
  const headChunks: Buffer[] = [];
  let headSize = 0;
  let exhausted = false;
  while (headSize < HEAD_BYTES) {
    const next = await iterator.next();
    if (next.done) {
      exhausted = true;
      break;
    }
    const chunk = Buffer.from(next.value.buffer, next.value.byteOffset, next.value.byteLength);
    headChunks.push(chunk);
    headSize += chunk.length;
  }
  const head = Buffer.concat(headChunks);
  const closeSource = () => void iterator.return?.()?.catch(() => {});
  let encoding: Encoding;
  try {
    encoding = detectEncoding(head, exhausted);
  } catch (error) {
    closeSource();
    throw asFileError(error);
  }
  const firstLine = headText(head, encoding).split(/\r?\n/, 1)[0] ?? '';
  if (firstLine.trim() === '') {
    closeSource();
    throw new CsvFileError([{ line: 1, column: null, code: 'file.empty', message: 'the file has no header row' }]);
  }
  const delimiter = detectDelimiter(firstLine);

  const hash = createHash('sha256');
  let bytes = 0;
  async function* fileBytes(): AsyncGenerator<Buffer> {
    const all = async function* () {
      yield head;
      if (exhausted) return;
      for (;;) {
        const next = await iterator.next();
        if (next.done) return;
        yield Buffer.from(next.value.buffer, next.value.byteOffset, next.value.byteLength);
      }
    };
    for await (const chunk of all()) {
      bytes += chunk.length;
      if (bytes > options.maxBytes) {
        throw new CsvFileError([
          { line: null, column: null, code: 'file.too-large', message: `the file is larger than ${options.maxBytes} bytes` },
        ]);
      }
      hash.update(chunk);
      yield chunk;
    }
  }

  // No `info` and no `on_record`: csv-parse builds an info object per record for either,
  // which cost it twice its own parsing time (profiled). The line each record ends on is
  // read from the parser as it hands the record over: the parser runs a whole chunk
  // ahead of the rows taken, so a syntax error's line is tracked here too.
  let header: string[] | undefined;
  let parsedEnd = 0;
  const parser: Parser = parse({ delimiter, bom: true, relax_column_count: true, skip_empty_lines: false });
  const push = parser.push.bind(parser);
  parser.push = (record: ParsedRecord | null) => {
    if (record !== null) {
      record.end = parser.info.lines;
      parsedEnd = record.end;
      header ??= record;
    }
    return push(record);
  };
  const where = (error: CsvError & { lines?: number; index?: number }): Pick<FileProblem, 'line' | 'column'> => {
    // An unclosed quote is found at the end of the file; the person needs where it opened.
    const line = error.code === 'CSV_QUOTE_NOT_CLOSED' || error.lines === undefined ? parsedEnd + 1 : error.lines;
    if (typeof error.index !== 'number') return { line, column: null };
    const cell = header?.[error.index];
    const known = cell === undefined ? undefined : columnFor(cell);
    return { line, column: known !== undefined && 'name' in known ? known.name : `column ${error.index + 1}` };
  };
  const records = parsedRecords(asUtf8(fileBytes(), encoding), parser, where);
  // Stopping early (an error, too many rows) must not leave the source open.
  const close = () => {
    void records.return(undefined).catch(() => {});
    parser.destroy();
    closeSource();
  };
  let columns: string[];
  let previousEnd: number;
  /** Records parsed with the header, not yet made rows. */
  let carried: ParsedRecord[] = [];
  try {
    let header: ParsedRecord | undefined;
    while (header === undefined) {
      const next = await records.next();
      if (next.done === true) {
        throw new CsvFileError([{ line: 1, column: null, code: 'file.empty', message: 'the file has no header row' }]);
      }
      carried = next.value;
      header = carried.shift();
    }
    columns = headerColumns(header);
    previousEnd = header.end!;
  } catch (error) {
    close();
    throw asFileError(error);
  }

  const empty: number[] = [];
  const rowsOf = (parsed: readonly ParsedRecord[]): CsvRow[] => {
    const made: CsvRow[] = [];
    for (const record of parsed) {
      const line = previousEnd + 1;
      previousEnd = record.end!;
      const cells: Record<string, string> = {};
      let filled = false;
      for (let index = 0; index < record.length; index++) {
        const value = record[index]!.trim();
        if (value === '') continue;
        filled = true;
        const column = columns[index];
        if (column !== undefined) cells[column] = value;
      }
      if (!filled) {
        empty.push(line);
        continue;
      }
      if (record.length === columns.length) made.push({ line, cells });
      else made.push({ line, cells, cellCount: record.length, headerCells: columns.length, ...splitAmountOf(record, columns, delimiter) });
    }
    return made;
  };
  async function* batches(): AsyncGenerator<CsvRow[]> {
    try {
      let parsed = carried;
      carried = [];
      for (;;) {
        const made = rowsOf(parsed);
        if (made.length > 0) yield made;
        const next = await records.next();
        if (next.done === true) return;
        parsed = next.value;
      }
    } catch (error) {
      throw asFileError(error);
    } finally {
      close();
    }
  }
  async function* rows(): AsyncGenerator<CsvRow> {
    for await (const batch of batches()) yield* batch;
  }

  return {
    encoding,
    delimiter,
    columns,
    rows: rows(),
    batches: batches(),
    emptyRows: () => empty,
    digest: () => ({ bytes, sha256: hash.copy().digest('hex') }),
  };
}

/**
 * The parser's records as they come, one chunk of input at a time: written, then read
 * back synchronously (csv-parse parses within write), so no promise is made per record.
 * A quoting error becomes a problem naming its line and column in our own words:
 * csv-parse's messages quote the cell, which may be a card number.
 */
async function* parsedRecords(
  text: AsyncIterable<Buffer>,
  parser: Parser,
  where: (error: CsvError) => Pick<FileProblem, 'line' | 'column'>,
): AsyncGenerator<ParsedRecord[]> {
  const problem = (error: unknown) =>
    error instanceof CsvError ? new CsvFileError([{ ...where(error), code: 'csv.syntax', message: syntaxMessage(error.code) }]) : error;
  const failed = () => {
    if (parser.errored !== null) throw problem(parser.errored);
  };
  // Errors are taken from `parser.errored` below; the event would only repeat them.
  parser.on('error', () => {});
  const drain = () => {
    const drained: ParsedRecord[] = [];
    for (let record = parser.read() as ParsedRecord | null; record !== null; record = parser.read() as ParsedRecord | null)
      drained.push(record);
    return drained;
  };
  for await (const chunk of text) {
    // A slice at a time: the rows of a whole 64 KiB chunk (about 800) waiting to be taken
    // outlived young-generation collections, which V8 answers by growing that generation
    // (to 134 MB in a million-row import, measured).
    for (let at = 0; at < chunk.length; at += PARSE_SLICE) {
      parser.write(chunk.subarray(at, at + PARSE_SLICE));
      yield drain();
      failed();
    }
  }
  // What the end of the input completes (a last row without a line end, an unclosed quote) comes after a tick.
  parser.end();
  const last: ParsedRecord[] = [];
  try {
    for await (const record of parser) last.push(record as ParsedRecord);
  } catch (error) {
    // The rows before the error are read first, as they would have been one at a time.
    if (last.length > 0) yield last;
    throw problem(error);
  }
  yield last;
}

function asFileError(error: unknown): unknown {
  if (error instanceof EncodingError)
    return new CsvFileError([{ line: error.line, column: null, code: 'file.encoding', message: error.message }]);
  return error;
}

function syntaxMessage(code: string): string {
  switch (code) {
    case 'INVALID_OPENING_QUOTE':
      return 'a quote inside a cell that does not start with one; put the whole cell in quotes and write each quote inside it twice ("")';
    case 'CSV_INVALID_CLOSING_QUOTE':
      return 'text after the closing quote of a cell; write each quote inside a quoted cell twice ("")';
    case 'CSV_QUOTE_NOT_CLOSED':
      return 'a quoted cell that starts here is never closed';
    default:
      return `the row cannot be read as CSV (${code})`;
  }
}

/** The canonical column of each header cell ('' for none); every problem of the header at once. */
export function headerColumns(header: readonly string[]): string[] {
  if (header.length > MAX_COLUMNS) {
    throw new CsvFileError([
      {
        line: 1,
        column: null,
        code: 'column.too-many',
        message: `the header has ${header.length} columns; a payroll file has at most ${MAX_COLUMNS}`,
      },
    ]);
  }
  const problems: FileProblem[] = [];
  const columns: string[] = [];
  const seen = new Set<string>();
  for (const cell of header) {
    const column = columnFor(cell);
    if ('error' in column) {
      problems.push({ line: 1, column: redactCardNumbers(cell.trim()).slice(0, 100), code: 'column.unknown', message: column.error });
      columns.push('');
      continue;
    }
    if (seen.has(column.name)) {
      problems.push({ line: 1, column: column.name, code: 'column.duplicate', message: `column "${column.name}" appears twice` });
    }
    seen.add(column.name);
    columns.push(column.name);
  }
  for (const required of requiredColumns) {
    if (!seen.has(required)) {
      problems.push({ line: 1, column: required, code: 'column.missing', message: `the header has no "${required}" column` });
    }
  }
  if (problems.length > 0) throw new CsvFileError(problems);
  return columns;
}

/**
 * A row one cell too long in a comma-separated file whose amount cell and the next read as
 * the two halves of an amount: a decimal comma ("1 000" and "50") or a thousands comma ("1"
 * and "500", "500.25"): the likeliest cause, said so.
 */
function splitAmountOf(
  record: readonly string[],
  columns: readonly string[],
  delimiter: Delimiter,
): { splitAmount?: string; splitAt?: 'decimal' | 'thousands' } {
  const at = columns.indexOf('amount');
  if (delimiter !== ',' || record.length !== columns.length + 1 || at < 0) return {};
  const whole = record[at]!.trim();
  const rest = record[at + 1]!.trim();
  if (/^\d{1,3}(?:[ \u00A0\u202F]\d{3})*$|^\d+$/.test(whole) && /^\d{1,2}$/.test(rest))
    return { splitAmount: `${whole},${rest}`, splitAt: 'decimal' };
  if (/^\d{1,3}$/.test(whole) && /^\d{3}(?:\.\d{1,2})?$/.test(rest)) return { splitAmount: `${whole},${rest}`, splitAt: 'thousands' };
  return {};
}

/** The delimiter the header uses most, outside quotes; `,` when it has none. */
function detectDelimiter(headerLine: string): Delimiter {
  const counts: Record<Delimiter, number> = { ',': 0, ';': 0, '\t': 0 };
  let quoted = false;
  for (const char of headerLine) {
    if (char === '"') quoted = !quoted;
    else if (!quoted && char in counts) counts[char as Delimiter]++;
  }
  return (Object.entries(counts) as Array<[Delimiter, number]>).reduce((best, entry) => (entry[1] > best[1] ? entry : best))[0];
}
