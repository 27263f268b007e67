import { isUtf8 } from 'node:buffer';
import iconv from 'iconv-lite';
import { GatewayError } from '../../../lib/gateway-error.ts';

/** The encodings payroll text files come in: what spreadsheets save as CSV or "Unicode text". */
export type Encoding = 'utf-8' | 'windows-1251' | 'utf-16le' | 'utf-16be';

export const encodingAdvice = 'save it as UTF-8, UTF-16 with a byte order mark, or windows-1251 (in Excel: "CSV UTF-8")';

/** Why the bytes are not text this service reads; the reader turns it into a file problem. */
export class EncodingError extends GatewayError {
  /** The file problem the reader turns it into. */
  readonly code = 'file.encoding';
  readonly kind = 'input';
  constructor(
    message: string,
    /** The file line the bad bytes are on, when one is known. */
    readonly line: number | null = null,
  ) {
    super(message);
    this.name = 'EncodingError';
  }
}

/**
 * The encoding, from the first bytes: a UTF-16 byte order mark (Excel's "Unicode text"),
 * else UTF-8 when the head is valid UTF-8, or has more well-formed UTF-8 characters
 * beyond ASCII than bytes that are not UTF-8 (a UTF-8 file with a bad byte: reading it
 * stops at that byte, see asUtf8); else windows-1251, whose Cyrillic is almost never
 * valid UTF-8 (a capital followed by Ё, ё, « or » now and then is). UTF-32, and UTF-16
 * without a byte order mark (NUL bytes throughout), cannot be told apart reliably and
 * are refused.
 */
export function detectEncoding(head: Buffer, complete: boolean): Encoding {
  if (head[0] === 0xff && head[1] === 0xfe && head[2] === 0 && head[3] === 0)
    throw new EncodingError(`the file is in UTF-32; ${encodingAdvice}`);
  if (head[0] === 0 && head[1] === 0 && head[2] === 0xfe && head[3] === 0xff)
    throw new EncodingError(`the file is in UTF-32; ${encodingAdvice}`);
  if (head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  if (head[0] === 0xfe && head[1] === 0xff) return 'utf-16be';
  const sample = head.subarray(0, 1024);
  let nuls = 0;
  for (const byte of sample) if (byte === 0) nuls++;
  if (sample.length >= 4 && nuls * 4 >= sample.length) {
    throw new EncodingError(`the file is in UTF-16 or UTF-32 without a byte order mark; ${encodingAdvice}`);
  }
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return 'utf-8';
  if (isUtf8(complete ? head : head.subarray(0, completeUtf8Length(head)))) return 'utf-8';
  const scan = new Utf8Scan();
  scan.write(head);
  if (complete) scan.end();
  return scan.looksUtf8() ? 'utf-8' : 'windows-1251';
}

/** The first line of the head as text, without a byte order mark: enough to find the delimiter. */
export function headText(head: Buffer, encoding: Encoding): string {
  const text = encoding === 'utf-8' ? head.toString('utf8') : iconv.decode(head, iconvName(encoding));
  return text.replace(/^\uFEFF/, '');
}

/**
 * The file as UTF-8 bytes, whatever it was in, checked as it streams: UTF-8 passes
 * through untouched (only validated), the others are decoded. NUL is refused in any
 * encoding: it is not text, and PostgreSQL cannot store it.
 */
export async function* asUtf8(chunks: AsyncIterable<Buffer>, encoding: Encoding): AsyncGenerator<Buffer> {
  let offset = 0;
  const checkNul = (text: Buffer | string, at: number) => {
    const nul = typeof text === 'string' ? text.indexOf('\u0000') : text.indexOf(0);
    if (nul !== -1) throw new EncodingError(`the file has a NUL byte (character ${at + nul + 1}), which is not text; ${encodingAdvice}`);
  };
  if (encoding === 'utf-8') {
    // Checked whole chunks at a time (natively); only a chunk that fails is looked at byte by byte.
    let carry: Buffer | undefined;
    let line = 1;
    const fail = (data: Buffer): never => {
      const scan = new Utf8Scan(offset, line);
      scan.write(data);
      scan.end();
      throw notUtf8(scan.first!);
    };
    for await (const chunk of chunks) {
      const data = carry === undefined ? chunk : Buffer.concat([carry, chunk]);
      const whole = completeUtf8Length(data);
      const ready = data.subarray(0, whole);
      if (!isUtf8(ready)) fail(data);
      checkNul(ready, offset);
      offset += ready.length;
      line += lineEnds(ready);
      carry = whole === data.length ? undefined : Buffer.from(data.subarray(whole));
      if (ready.length > 0) yield ready;
    }
    if (carry !== undefined) fail(carry);
    return;
  }
  // A windows-1251 guess is checked to the end: a UTF-8 file whose head held a bad byte
  // and little else beyond ASCII is refused at that byte, not read garbled.
  const scan = encoding === 'windows-1251' ? new Utf8Scan() : undefined;
  const decoder = iconv.getDecoder(iconvName(encoding));
  for await (const chunk of chunks) {
    scan?.write(chunk);
    const text: string = decoder.write(chunk);
    checkNul(text, offset);
    offset += text.length;
    if (text !== '') yield Buffer.from(text, 'utf8');
  }
  scan?.end();
  if (scan?.looksUtf8() === true) throw notUtf8(scan.first!);
  const rest: string | undefined = decoder.end();
  if (rest) {
    checkNul(rest, offset);
    yield Buffer.from(rest, 'utf8');
  }
}

function iconvName(encoding: Exclude<Encoding, 'utf-8'> | Encoding): string {
  return encoding === 'windows-1251' ? 'win1251' : encoding;
}

function notUtf8(bad: BadByte): EncodingError {
  const hex = bad.value.toString(16).toUpperCase().padStart(2, '0');
  return new EncodingError(
    `the file is UTF-8 but byte ${bad.offset + 1} (0x${hex}, line ${bad.line}) is not; ` +
      'retype the character there, or save the whole file again as UTF-8 (in Excel: "CSV UTF-8")',
    bad.line,
  );
}

function lineEnds(data: Buffer): number {
  let count = 0;
  for (let at = data.indexOf(10); at !== -1; at = data.indexOf(10, at + 1)) count++;
  return count;
}

/** The first byte that breaks UTF-8: where it is in the file (offset from 0) and on which line. */
interface BadByte {
  offset: number;
  line: number;
  value: number;
}

/**
 * Reads bytes as UTF-8 across chunks, byte by byte (a chunk may end inside a character):
 * counts the well-formed characters beyond ASCII and the bytes that break UTF-8, and keeps
 * the first of those. The same rules as isUtf8: no overlong forms, surrogates or code
 * points past U+10FFFF.
 */
class Utf8Scan {
  valid = 0;
  invalid = 0;
  first: BadByte | undefined;
  /** Continuation bytes the current character still needs, and the range its next one must be in. */
  private needed = 0;
  private low = 0x80;
  private high = 0xbf;
  private start: BadByte = { offset: 0, line: 1, value: 0 };

  constructor(
    private offset = 0,
    private line = 1,
  ) {}

  write(data: Buffer): void {
    for (let index = 0; index < data.length; index++, this.offset++) {
      const byte = data[index]!;
      if (this.needed > 0) {
        if (byte >= this.low && byte <= this.high) {
          this.low = 0x80;
          this.high = 0xbf;
          if (--this.needed === 0) this.valid++;
          continue;
        }
        // The character is cut short; this byte starts afresh.
        this.bad(this.start);
        this.needed = 0;
      }
      if (byte < 0x80) {
        if (byte === 10) this.line++;
        continue;
      }
      this.start = { offset: this.offset, line: this.line, value: byte };
      if (byte >= 0xc2 && byte <= 0xdf) this.expect(1, 0x80, 0xbf);
      else if (byte === 0xe0) this.expect(2, 0xa0, 0xbf);
      else if (byte === 0xed) this.expect(2, 0x80, 0x9f);
      else if (byte >= 0xe1 && byte <= 0xef) this.expect(2, 0x80, 0xbf);
      else if (byte === 0xf0) this.expect(3, 0x90, 0xbf);
      else if (byte >= 0xf1 && byte <= 0xf3) this.expect(3, 0x80, 0xbf);
      else if (byte === 0xf4) this.expect(3, 0x80, 0x8f);
      else this.bad(this.start);
    }
  }

  /** The input is over: a character still open is cut short. */
  end(): void {
    if (this.needed > 0) this.bad(this.start);
    this.needed = 0;
  }

  /** More well-formed characters beyond ASCII than bytes that break UTF-8: UTF-8 with mistakes, not another encoding. */
  looksUtf8(): boolean {
    return this.invalid > 0 && this.valid > this.invalid;
  }

  private expect(needed: number, low: number, high: number): void {
    this.needed = needed;
    this.low = low;
    this.high = high;
  }

  private bad(at: BadByte): void {
    this.invalid++;
    this.first ??= at;
  }
}

/** The length of `data` up to its last whole UTF-8 sequence: a chunk may end inside a character. */
function completeUtf8Length(data: Buffer): number {
  const end = data.length;
  // A character is at most 4 bytes: look at most 3 back for the lead byte of a cut one.
  for (let back = 1; back <= Math.min(3, end); back++) {
    const byte = data[end - back]!;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return needed > back ? end - back : end;
  }
  return end;
}
