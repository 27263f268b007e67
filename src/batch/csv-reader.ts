import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { CsvError, parse } from 'csv-parse';
import iconv from 'iconv-lite';
import { redactCardNumbers } from './cell-text.ts';
import { columnFor, MAX_COLUMNS, requiredColumns } from './csv-columns.ts';

export interface FileProblem {
  line: number | null;
  column: string | null;
  code: string;
  message: string;
}

/** The file cannot be read as a payroll CSV at all; every reason is listed. */
export class CsvFileError extends Error {
  constructor(readonly problems: FileProblem[]) {
    super(problems.map((p) => (p.line === null ? p.message : `line ${p.line}: ${p.message}`)).join('; '));
    this.name = 'CsvFileError';
  }
}

export interface CsvRow {
  /** The file line the row starts on (the header is line 1). */
  line: number;
  /** Cells by canonical column name, trimmed; empty cells left out. */
  cells: Record<string, string>;
  /** Set when the row has another number of cells than the header. */
  cellCount?: number;
}

export type Encoding = 'utf-8' | 'windows-1251';
export type Delimiter = ',' | ';' | '\t';

export interface PayrollCsv {
  encoding: Encoding;
  delimiter: Delimiter;
  columns: string[];
  rows: AsyncGenerator<CsvRow>;
  /** Size and sha256 of the bytes read so far (the whole file once `rows` is done). */
  digest(): { bytes: number; sha256: string };
}

/** Enough of the file to tell its encoding and read its header. */
const HEAD_BYTES = 64 * 1024;

/**
 * Opens a payroll CSV as spreadsheets save it: UTF-8 with or without BOM, or
 * windows-1251 (told apart by whether the first 64 KiB are valid UTF-8); `,`, `;` or
 * tab as delimiter (whichever the header line has most of); CRLF or LF. The rest of the
 * file is read as a stream, so memory does not grow with the file.
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
    const chunk = Buffer.from(next.value);
    headChunks.push(chunk);
    headSize += chunk.length;
  }
  const head = Buffer.concat(headChunks);
  const closeSource = () => void iterator.return?.()?.catch(() => {});
  const wide = wideEncodingError(head);
  if (wide !== undefined) {
    closeSource();
    throw wide;
  }
  const encoding = detectEncoding(head, exhausted);
  const firstLine = decodeHead(head, encoding).replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0] ?? '';
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
        yield Buffer.from(next.value);
      }
    };
    for await (const chunk of all()) {
      bytes += chunk.length;
      if (bytes > options.maxBytes) {
        throw new CsvFileError([
          { line: null, column: null, code: 'file.too-large', message: `the file is larger than ${options.maxBytes} bytes` },
        ]);
      }
      const nul = chunk.indexOf(0);
      if (nul !== -1) throw nulByte(bytes - chunk.length + nul);
      hash.update(chunk);
      yield chunk;
    }
  }

  // The parser runs ahead of the records we have taken (a whole chunk at a time), so where
  // a syntax error is gets tracked here, as records are parsed.
  let header: string[] | undefined;
  let parsedEnd = 0;
  const parser = parse({
    delimiter,
    bom: true,
    relax_column_count: true,
    skip_empty_lines: false,
    info: true,
    // With `info` the record comes wrapped, which csv-parse's types do not say.
    on_record: (parsed: unknown, context: { lines: number }) => {
      header ??= Array.isArray(parsed) ? (parsed as string[]) : (parsed as { record: string[] }).record;
      parsedEnd = context.lines;
      return parsed as string[];
    },
  });
  const where = (error: CsvError & { lines?: number; index?: number }): Pick<FileProblem, 'line' | 'column'> => {
    // An unclosed quote is found at the end of the file; the person needs where it opened.
    const line = error.code === 'CSV_QUOTE_NOT_CLOSED' || error.lines === undefined ? parsedEnd + 1 : error.lines;
    if (typeof error.index !== 'number') return { line, column: null };
    const cell = header?.[error.index];
    const known = cell === undefined ? undefined : columnFor(cell);
    return { line, column: known !== undefined && 'name' in known ? known.name : `column ${error.index + 1}` };
  };
  const text = Readable.from(decodeStream(fileBytes(), encoding));
  // pipe() does not forward errors: a too-large or mis-encoded file must end the parser's iteration.
  text.on('error', (error) => parser.destroy(error));
  const iteratorOf = text.pipe(parser)[Symbol.asyncIterator]() as AsyncIterator<{ record: string[]; info: { lines: number } }>;
  // Stopping early (an error, too many rows) must not leave the source open.
  const close = () => {
    parser.destroy();
    text.destroy();
    closeSource();
  };
  const read = () => nextRecord(iteratorOf, where);
  let columns: string[];
  let previousEnd: number;
  try {
    const first = await read();
    if (first === undefined) {
      throw new CsvFileError([{ line: 1, column: null, code: 'file.empty', message: 'the file has no header row' }]);
    }
    columns = headerColumns(first.record);
    previousEnd = first.info.lines;
  } catch (error) {
    close();
    throw error;
  }

  async function* rows(): AsyncGenerator<CsvRow> {
    try {
      for (;;) {
        const next = await read();
        if (next === undefined) return;
        const line = previousEnd + 1;
        previousEnd = next.info.lines;
        const { record } = next;
        if (record.length === 1 && record[0]!.trim() === '') continue;
        const cells: Record<string, string> = {};
        columns.forEach((column, index) => {
          const value = record[index]?.trim() ?? '';
          if (value !== '') cells[column] = value;
        });
        yield record.length === columns.length ? { line, cells } : { line, cells, cellCount: record.length };
      }
    } finally {
      close();
    }
  }

  return {
    encoding,
    delimiter,
    columns,
    rows: rows(),
    digest: () => ({ bytes, sha256: hash.copy().digest('hex') }),
  };
}

/**
 * The next record; a quoting error becomes a problem naming its line and column in our
 * own words: csv-parse's messages quote the cell, which may be a card number.
 */
async function nextRecord<T>(iterator: AsyncIterator<T>, where: (error: CsvError) => Pick<FileProblem, 'line' | 'column'>): Promise<T | undefined> {
  try {
    const next = await iterator.next();
    return next.done ? undefined : next.value;
  } catch (error) {
    if (error instanceof CsvFileError) throw error;
    if (error instanceof CsvError) throw new CsvFileError([{ ...where(error), code: 'csv.syntax', message: syntaxMessage(error.code) }]);
    throw error;
  }
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

function headerColumns(header: string[]): string[] {
  if (header.length > MAX_COLUMNS) {
    throw new CsvFileError([
      { line: 1, column: null, code: 'column.too-many', message: `the header has ${header.length} columns; a payroll file has at most ${MAX_COLUMNS}` },
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

const encodingAdvice = 'save it as UTF-8 or windows-1251 (in Excel: "CSV UTF-8")';

/**
 * UTF-16 and UTF-32 would otherwise pass as windows-1251 (with a BOM) or as UTF-8 full of
 * NUL bytes (without), which PostgreSQL refuses to store.
 */
function wideEncodingError(head: Buffer): CsvFileError | undefined {
  const bom = (head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff);
  const sample = head.subarray(0, 1024);
  let nuls = 0;
  for (const byte of sample) if (byte === 0) nuls++;
  if (!bom && !(sample.length >= 4 && nuls * 4 >= sample.length)) return undefined;
  return new CsvFileError([{ line: null, column: null, code: 'file.encoding', message: `the file is in UTF-16 or UTF-32; ${encodingAdvice}` }]);
}

function nulByte(offset: number): CsvFileError {
  return new CsvFileError([
    { line: null, column: null, code: 'file.encoding', message: `the file has a NUL byte (at byte ${offset + 1}), which is not text; ${encodingAdvice}` },
  ]);
}

function detectEncoding(head: Buffer, complete: boolean): Encoding {
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return 'utf-8';
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: !complete });
    return 'utf-8';
  } catch {
    return 'windows-1251';
  }
}

function decodeHead(head: Buffer, encoding: Encoding): string {
  return encoding === 'utf-8' ? new TextDecoder('utf-8').decode(head) : iconv.decode(head, 'win1251');
}

async function* decodeStream(chunks: AsyncIterable<Buffer>, encoding: Encoding): AsyncGenerator<string> {
  if (encoding === 'windows-1251') {
    const decoder = iconv.getDecoder('win1251');
    for await (const chunk of chunks) yield decoder.write(chunk);
    const rest = decoder.end();
    if (rest) yield rest;
    return;
  }
  const decoder = new TextDecoder('utf-8', { fatal: true });
  try {
    for await (const chunk of chunks) yield decoder.decode(chunk, { stream: true });
    yield decoder.decode();
  } catch (error) {
    if (error instanceof CsvFileError) throw error;
    throw new CsvFileError([
      {
        line: null,
        column: null,
        code: 'file.encoding',
        message: 'the file starts as UTF-8 but has bytes that are not UTF-8 later; save it as UTF-8 or windows-1251',
      },
    ]);
  }
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
