import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, type Duplex } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { StringDecoder } from 'node:string_decoder';
import ExcelJS from 'exceljs';
import { CsvFileError } from './csv-reader.ts';
import { SharedStringTable } from './xlsx-shared-strings.ts';

// exceljs' own zip reader and XML event reader, as exceljs resolves them.
const fromExceljs = createRequire(createRequire(import.meta.url).resolve('exceljs'));
const unzipper = fromExceljs('unzipper') as { Parse(options: { forceStream: true }): Duplex };
type SaxEvent = { eventType: 'opentag' | 'closetag'; value: { name: string } } | { eventType: 'text'; value: string };
const parseSax = fromExceljs('./lib/utils/parse-sax.js') as (text: AsyncIterable<string>) => AsyncIterable<SaxEvent[]>;

/** A zip entry as unzipper streams it: its bytes, inflated. */
type ZipEntry = Readable & { path: string };

/** What of exceljs' WorkbookReader this one builds on (not in its typings). */
interface WorkbookReaderInternals {
  input: Readable;
  sharedStrings: unknown[] | undefined;
  _parseWorksheet(part: AsyncIterable<string>, sheetNo: string): Generator<{ eventType: string; value: unknown }>;
  [Symbol.asyncIterator](): AsyncIterator<ExcelJS.stream.xlsx.WorksheetReader>;
}
const WorkbookReader = ExcelJS.stream.xlsx.WorkbookReader as unknown as new (input: Readable, options: object) => WorkbookReaderInternals;

const WORKSHEET = /^xl\/worksheets\/sheet(\d+)\.xml$/;

/**
 * exceljs' streaming WorkbookReader with its reading of the zip replaced, so that no
 * workbook can take more memory, disk or time than a CSV file of the size limit:
 *
 * - every part is counted as it inflates, and the workbook is refused
 *   (`file.too-large-unpacked`) once all it has inflated passes `maxBytes`, the limit a
 *   CSV file has: a zip of a few hundred kilobytes can hold gigabytes of XML;
 * - the shared-strings table is packed (SharedStringTable: its UTF-8 bytes, not a JS
 *   string per entry) and what it hands to cells is counted against the same limit;
 * - a sheet that comes before the shared strings (as Excel writes them) waits in a
 *   private temp file, as in exceljs, counted like the rest; parts not needed are
 *   inflated only to be counted, never kept;
 * - parts are decoded as UTF-8 across chunks: exceljs decodes each inflated chunk on its
 *   own, so a Cyrillic letter cut by a chunk end became two replacement characters.
 *
 * Only the first worksheet in the archive is read, as before; sheet names and styles are
 * not (cells are read as the values they hold).
 */
export class BoundedWorkbookReader extends WorkbookReader {
  private unpacked = 0;

  constructor(
    input: Readable,
    private readonly maxBytes: number,
  ) {
    super(input, { worksheets: 'emit', sharedStrings: 'cache', hyperlinks: 'ignore', styles: 'ignore', entries: 'ignore' });
  }

  /** Overrides exceljs' parse: what the worksheets iterator reads. */
  async *parse(): AsyncGenerator<{ eventType: string; value: unknown }> {
    const zip = unzipper.Parse({ forceStream: true });
    let current: ZipEntry | undefined;
    // A pipe passes no errors on: the input's (the file over its size limit) or the zip's
    // (a truncated archive) must also end the part being read, or it waits for ever.
    const abort = (error: Error) => {
      current?.destroy(error);
      zip.destroy(error);
    };
    this.input.once('error', abort);
    zip.once('error', abort);
    this.input.pipe(zip);
    let waiting: { sheetNo: string; dir: string; path: string } | undefined;
    try {
      for await (current of zip.iterator({ destroyOnReturn: false }) as AsyncIterable<ZipEntry>) {
        const entry = current;
        const sheet = WORKSHEET.exec(entry.path);
        if (entry.path === 'xl/sharedStrings.xml') await this.readSharedStrings(entry);
        else if (sheet !== null && waiting === undefined) {
          if (this.sharedStrings !== undefined) {
            // Only the first worksheet is read: nothing after it is needed.
            yield* this._parseWorksheet(this.text(entry), sheet[1]!);
            return;
          }
          const dir = await mkdtemp(join(tmpdir(), 'payout-xlsx-'));
          waiting = { sheetNo: sheet[1]!, dir, path: join(dir, 'sheet.xml') };
          await pipeline(Readable.from(this.counted(entry)), createWriteStream(waiting.path, { flags: 'wx', mode: 0o600 }));
        }
        // A part not needed (the workbook's sheet names, styles, themes, other sheets) is inflated to be counted, and dropped.
        if (!entry.readableEnded) for await (const _ of this.counted(entry));
      }
      current = undefined;
      if (waiting !== undefined) yield* this._parseWorksheet(utf8Text(createReadStream(waiting.path)), waiting.sheetNo);
    } finally {
      // Stopped early (refused, or the caller has what it needs): what is left of the zip is dropped quietly.
      this.input.off('error', abort);
      zip.off('error', abort);
      zip.on('error', ignore);
      current?.on('error', ignore);
      zip.destroy();
      if (waiting !== undefined) await rm(waiting.dir, { recursive: true, force: true });
    }
  }

  /**
   * The part's bytes as they inflate, counted against the limit. Reading stops without
   * destroying the part: unzipper reads the next part only once this one is written whole,
   * so what a reader leaves (after the closing tag) is drained by parse.
   */
  private async *counted(entry: ZipEntry): AsyncGenerator<Buffer> {
    for await (const chunk of entry.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
      this.unpacked += chunk.length;
      if (this.unpacked > this.maxBytes) {
        throw new CsvFileError([
          {
            line: null,
            column: null,
            code: 'file.too-large-unpacked',
            message: `the workbook unpacks to more than ${this.maxBytes} bytes (the limit for a payroll file, packed or not), reached in ${entry.path}; split it, or save it as CSV`,
          },
        ]);
      }
      yield chunk;
    }
  }

  private text(entry: ZipEntry): AsyncIterable<string> {
    return utf8Text(this.counted(entry));
  }

  /** The table of strings the cells name by number: only the text of each, rich text runs joined, phonetic guides left out. */
  private async readSharedStrings(entry: ZipEntry): Promise<void> {
    const table = new SharedStringTable(this.maxBytes);
    let parts: string[] | undefined;
    let inText = 0;
    let inPhonetic = 0;
    for await (const events of parseSax(this.text(entry))) {
      for (const event of events) {
        if (event.eventType === 'text') {
          if (parts !== undefined && inText > 0 && inPhonetic === 0) parts.push(event.value);
          continue;
        }
        const open = event.eventType === 'opentag';
        switch (event.value.name) {
          case 'si':
            if (open) parts = [];
            else if (parts !== undefined) {
              table.add(parts.join(''));
              parts = undefined;
            }
            break;
          case 't':
            inText += open ? 1 : -1;
            break;
          case 'rPh':
            inPhonetic += open ? 1 : -1;
            break;
        }
      }
    }
    this.sharedStrings = table.asArray();
  }
}

function ignore(): void {}

/** Bytes as UTF-8 text, a character cut by a chunk end kept whole. */
async function* utf8Text(chunks: AsyncIterable<Buffer>): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  for await (const chunk of chunks) {
    const text = decoder.write(chunk);
    if (text !== '') yield text;
  }
  const rest = decoder.end();
  if (rest !== '') yield rest;
}
