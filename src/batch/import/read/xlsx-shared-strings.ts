import { CsvFileError } from './csv-reader.ts';

/** Bytes of text per block: strings are packed one after another, across blocks when they must. */
const BLOCK = 1024 * 1024;

/**
 * A workbook's shared-strings table, packed: each string's UTF-8 bytes in 1 MiB blocks
 * and its end in a Uint32Array, so the table costs about the bytes of its text (never
 * more than the part it was read from) plus 4 bytes a string, instead of a JS string
 * (and a 16-byte header and an 8-byte array slot) each. A string is decoded when a cell
 * asks for it; every string handed out is counted, since a cell of a few bytes can name
 * a string of megabytes, again and again (see handOut).
 */
export class SharedStringTable {
  private readonly blocks: Buffer[] = [];
  private ends = new Uint32Array(1024);
  private count = 0;
  private size = 0;
  private handedOut = 0;

  constructor(private readonly maxBytes: number) {}

  get length(): number {
    return this.count;
  }

  add(text: string): void {
    const bytes = Buffer.from(text, 'utf8');
    // The part the table comes from is already counted against the limit; this guards the 32-bit ends.
    if (this.size + bytes.length > 0xffff_ffff) throw tooMuchText(this.maxBytes);
    for (let from = 0; from < bytes.length;) {
      const at = this.size % BLOCK;
      if (at === 0) this.blocks.push(Buffer.allocUnsafe(BLOCK));
      const copied = bytes.copy(this.blocks.at(-1)!, at, from, Math.min(bytes.length, from + BLOCK - at));
      from += copied;
      this.size += copied;
    }
    if (this.count === this.ends.length) {
      const grown = new Uint32Array(this.ends.length * 2);
      grown.set(this.ends);
      this.ends = grown;
    }
    this.ends[this.count++] = this.size;
  }

  /**
   * The string at `index` for a cell, counted: all that the cells are handed may not
   * exceed the limit a file has, so a workbook cannot turn into more text than a CSV
   * file may hold by naming one long string from many cells.
   */
  handOut(index: number): string | undefined {
    if (!Number.isInteger(index) || index < 0 || index >= this.count) return undefined;
    const start = index === 0 ? 0 : this.ends[index - 1]!;
    const end = this.ends[index]!;
    this.handedOut += end - start;
    if (this.handedOut > this.maxBytes) throw tooMuchText(this.maxBytes);
    const first = Math.floor(start / BLOCK);
    if (end - start === 0) return '';
    if (Math.floor((end - 1) / BLOCK) === first) return this.blocks[first]!.toString('utf8', start % BLOCK, (start % BLOCK) + end - start);
    const parts: Buffer[] = [];
    for (let at = start; at < end;) {
      const block = Math.floor(at / BLOCK);
      const upto = Math.min(end, (block + 1) * BLOCK);
      parts.push(this.blocks[block]!.subarray(at % BLOCK, (at % BLOCK) + upto - at));
      at = upto;
    }
    return Buffer.concat(parts).toString('utf8');
  }

  /** The table as exceljs' worksheet reader reads it: `sharedStrings[index]`. */
  asArray(): unknown[] {
    return new Proxy([], {
      get: (target, key) => {
        if (typeof key === 'string' && /^\d+$/.test(key)) return this.handOut(Number(key));
        if (key === 'length') return this.count;
        return Reflect.get(target, key);
      },
    });
  }
}

function tooMuchText(maxBytes: number): CsvFileError {
  return new CsvFileError([
    {
      line: null,
      column: null,
      code: 'file.too-large-unpacked',
      message: `the workbook's cells hold more than ${maxBytes} bytes of text, the limit for a payroll file (its shared strings are repeated across many cells); split it, or save it as CSV`,
    },
  ]);
}
