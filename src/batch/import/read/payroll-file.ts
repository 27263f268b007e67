import { CsvFileError, openPayrollCsv, type PayrollRows } from './csv-reader.ts';

/** A zip archive's local file header: how every .xlsx starts, whatever the file is named. */
const ZIP_SIGNATURE = Buffer.from([0x50, 0x4b, 0x03, 0x04]);

/**
 * Opens a payroll file by what it holds, not by its name: an .xlsx workbook (a zip
 * archive) or delimited text (see openPayrollCsv). A workbook saved as "payroll.csv", or
 * a CSV named .xlsx, is read as what it is.
 */
export async function openPayrollFile(source: AsyncIterable<Uint8Array>, options: { maxBytes: number }): Promise<PayrollRows> {
  const iterator = source[Symbol.asyncIterator]();
  const head: Buffer[] = [];
  let size = 0;
  let done = false;
  while (size < ZIP_SIGNATURE.length) {
    const next = await iterator.next();
    if (next.done === true) {
      done = true;
      break;
    }
    const chunk = Buffer.from(next.value.buffer, next.value.byteOffset, next.value.byteLength);
    head.push(chunk);
    size += chunk.length;
  }
  const whole = (async function* () {
    yield* head;
    if (done) return;
    // The iterator, not a for-await over it: stopping early must close the source once, through here.
    try {
      for (;;) {
        const next = await iterator.next();
        if (next.done === true) return;
        yield next.value;
      }
    } finally {
      await iterator.return?.();
    }
  })();
  const start = Buffer.concat(head);
  if (start.subarray(0, ZIP_SIGNATURE.length).equals(ZIP_SIGNATURE)) {
    // exceljs is large (tens of MB resident): loaded only for a workbook.
    const { openPayrollXlsx } = await import('./xlsx-reader.ts');
    return openPayrollXlsx(limited(whole, options.maxBytes), options);
  }
  return openPayrollCsv(whole, options);
}

/** The bytes of a workbook, refused past the size limit as CSV files are. */
async function* limited(source: AsyncIterable<Uint8Array>, maxBytes: number): AsyncGenerator<Uint8Array> {
  let bytes = 0;
  for await (const chunk of source) {
    bytes += chunk.byteLength;
    if (bytes > maxBytes) {
      throw new CsvFileError([{ line: null, column: null, code: 'file.too-large', message: `the file is larger than ${maxBytes} bytes` }]);
    }
    yield chunk;
  }
}
