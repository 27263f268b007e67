import { createHash, type Hash } from 'node:crypto';

const CR = 0x0d;
const LF = 0x0a;
const isTrailingSpace = (byte: number) => byte === LF || byte === 0x20 || byte === 0x09;

/**
 * sha256 of a file's content as a person sees it: the same payroll file saved again by
 * another editor or spreadsheet gets another byte hash (a UTF-8 BOM added, CRLF line
 * ends, a newline at the end) but the same key, so importing it again is caught.
 * Normalised: no leading UTF-8 BOM, CRLF and lone CR as LF, no spaces, tabs or line
 * ends at the end of the file. Fed in chunks; memory does not grow with the file.
 */
export class FileKeyHash {
  /** The first bytes, kept until there are enough to tell whether they are a BOM. */
  private head: Buffer | undefined = Buffer.alloc(0);
  /** A zip archive (.xlsx): bytes, not text, so hashed as they are. */
  private binary = false;
  private afterCr = false;
  private readonly all = createHash('sha256');
  /**
   * The hash up to the last byte that is not trailing space. Trailing space is only known
   * to be trailing at the end, so it is hashed as it comes and this snapshot is the answer
   * if nothing else follows.
   */
  private content: Hash = createHash('sha256');

  update(chunk: Uint8Array): void {
    if (this.head !== undefined) {
      this.head = Buffer.concat([this.head, chunk]);
      if (this.head.length < 4) return;
      const head = this.head;
      this.head = undefined;
      this.binary = isZip(head);
      this.feed(hasBom(head) ? head.subarray(3) : head);
      return;
    }
    this.feed(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  }

  /** Hex sha256 of the normalised content. Call once, after the last chunk. */
  digest(): string {
    if (this.head !== undefined) {
      const head = this.head;
      this.head = undefined;
      this.feed(head);
    }
    return (this.binary ? this.all : this.content).digest('hex');
  }

  private feed(chunk: Buffer): void {
    if (this.binary) {
      this.all.update(chunk);
      return;
    }
    let data = this.afterCr && chunk[0] === LF ? chunk.subarray(1) : chunk;
    if (data.length === 0) {
      if (chunk.length > 0) this.afterCr = false;
      return;
    }
    this.afterCr = data[data.length - 1] === CR;
    if (data.includes(CR)) data = crToLf(data);
    let last = data.length - 1;
    while (last >= 0 && isTrailingSpace(data[last]!)) last--;
    if (last < 0) {
      this.all.update(data);
      return;
    }
    this.all.update(data.subarray(0, last + 1));
    this.content = this.all.copy();
    this.all.update(data.subarray(last + 1));
  }
}

function isZip(head: Buffer): boolean {
  return head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04;
}

function hasBom(head: Buffer): boolean {
  return head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf;
}

/** CRLF and lone CR become LF (an LF right after a CR at the start was dropped already). */
function crToLf(data: Buffer): Buffer {
  const out = Buffer.allocUnsafe(data.length);
  let length = 0;
  let previousCr = false;
  for (let i = 0; i < data.length; i++) {
    const byte = data[i]!;
    if (byte === CR) out[length++] = LF;
    else if (!(byte === LF && previousCr)) out[length++] = byte;
    previousCr = byte === CR;
  }
  return out.subarray(0, length);
}
