import { isUtf8 } from 'node:buffer';
import iconv from 'iconv-lite';

/** The encodings payroll text files come in: what spreadsheets save as CSV or "Unicode text". */
export type Encoding = 'utf-8' | 'windows-1251' | 'utf-16le' | 'utf-16be';

export const encodingAdvice = 'save it as UTF-8, UTF-16 with a byte order mark, or windows-1251 (in Excel: "CSV UTF-8")';

/** Why the bytes are not text this service reads; the reader turns it into a file problem. */
export class EncodingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EncodingError';
  }
}

/**
 * The encoding, from the first bytes: a UTF-16 byte order mark (Excel's "Unicode text"),
 * else UTF-8 when the head is valid UTF-8, else windows-1251. UTF-32, and UTF-16 without
 * a byte order mark (NUL bytes throughout), cannot be told apart reliably and are refused.
 */
export function detectEncoding(head: Buffer, complete: boolean): Encoding {
  if (head[0] === 0xff && head[1] === 0xfe && head[2] === 0 && head[3] === 0) throw new EncodingError(`the file is in UTF-32; ${encodingAdvice}`);
  if (head[0] === 0 && head[1] === 0 && head[2] === 0xfe && head[3] === 0xff) throw new EncodingError(`the file is in UTF-32; ${encodingAdvice}`);
  if (head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  if (head[0] === 0xfe && head[1] === 0xff) return 'utf-16be';
  const sample = head.subarray(0, 1024);
  let nuls = 0;
  for (const byte of sample) if (byte === 0) nuls++;
  if (sample.length >= 4 && nuls * 4 >= sample.length) {
    throw new EncodingError(`the file is in UTF-16 or UTF-32 without a byte order mark; ${encodingAdvice}`);
  }
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return 'utf-8';
  return isUtf8(complete ? head : head.subarray(0, completeUtf8Length(head))) ? 'utf-8' : 'windows-1251';
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
    let carry: Buffer | undefined;
    for await (const chunk of chunks) {
      const data = carry === undefined ? chunk : Buffer.concat([carry, chunk]);
      const whole = completeUtf8Length(data);
      const ready = data.subarray(0, whole);
      if (!isUtf8(ready)) throw invalidUtf8();
      checkNul(ready, offset);
      offset += ready.length;
      carry = whole === data.length ? undefined : Buffer.from(data.subarray(whole));
      if (ready.length > 0) yield ready;
    }
    if (carry !== undefined) throw invalidUtf8();
    return;
  }
  const decoder = iconv.getDecoder(iconvName(encoding));
  for await (const chunk of chunks) {
    const text: string = decoder.write(chunk);
    checkNul(text, offset);
    offset += text.length;
    if (text !== '') yield Buffer.from(text, 'utf8');
  }
  const rest: string | undefined = decoder.end();
  if (rest) {
    checkNul(rest, offset);
    yield Buffer.from(rest, 'utf8');
  }
}

function iconvName(encoding: Exclude<Encoding, 'utf-8'> | Encoding): string {
  return encoding === 'windows-1251' ? 'win1251' : encoding;
}

function invalidUtf8(): EncodingError {
  return new EncodingError('the file starts as UTF-8 but has bytes that are not UTF-8 later; save it as UTF-8 or windows-1251');
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
