const EMPTY = 0;
const MAX_LOAD = 0.8;
const GROWTH = 1.5;

/**
 * The first line each key was seen on, for every row of a file: a key is kept as a 64-bit
 * hash in typed arrays (12 bytes a slot, 15 to 23 bytes a key), not as text in a Map
 * (about 100 bytes a key), so a million-row file's duplicate checks take tens of
 * megabytes, not hundreds. Two keys with the same 64-bit hash count as one: for the 10
 * million rows a file may have at most, about one file in 400,000 would see a false
 * duplicate.
 */
export class FirstLines {
  private hi: Int32Array;
  private lo: Int32Array;
  /** The line, or EMPTY: lines start at 2 (the header is 1). */
  private lines: Int32Array;
  private count = 0;

  constructor(capacity = 1024) {
    this.hi = new Int32Array(capacity);
    this.lo = new Int32Array(capacity);
    this.lines = new Int32Array(capacity);
  }

  /** The line `key` was first seen on, if it was. */
  first(key: string): number | undefined {
    const [hi, lo] = hash64(key);
    const size = this.lines.length;
    for (let slot = home(lo, size); ; slot = slot + 1 === size ? 0 : slot + 1) {
      const seen = this.lines[slot]!;
      if (seen === EMPTY) return undefined;
      if (this.hi[slot] === hi && this.lo[slot] === lo) return seen;
    }
  }

  /** The line `key` was first seen on; when never, remembers `line` and returns undefined. */
  firstOrAdd(key: string, line: number): number | undefined {
    const [hi, lo] = hash64(key);
    const size = this.lines.length;
    for (let slot = home(lo, size); ; slot = slot + 1 === size ? 0 : slot + 1) {
      const seen = this.lines[slot]!;
      if (seen === EMPTY) {
        this.hi[slot] = hi;
        this.lo[slot] = lo;
        this.lines[slot] = line;
        if (++this.count > size * MAX_LOAD) this.grow();
        return undefined;
      }
      if (this.hi[slot] === hi && this.lo[slot] === lo) return seen;
    }
  }

  /** Memory held, whatever the keys' length. */
  get bytes(): number {
    return this.hi.byteLength + this.lo.byteLength + this.lines.byteLength;
  }

  /** By half again, not double: the arrays are most of the memory a large file's import holds. */
  private grow(): void {
    const { hi, lo, lines } = this;
    const size = Math.ceil(lines.length * GROWTH);
    this.hi = new Int32Array(size);
    this.lo = new Int32Array(size);
    this.lines = new Int32Array(size);
    for (let old = 0; old < lines.length; old++) {
      if (lines[old] === EMPTY) continue;
      let slot = home(lo[old]!, size);
      while (this.lines[slot] !== EMPTY) slot = slot + 1 === size ? 0 : slot + 1;
      this.hi[slot] = hi[old]!;
      this.lo[slot] = lo[old]!;
      this.lines[slot] = lines[old]!;
    }
  }
}

/** The slot a hash starts at, spread over any table size (multiply-shift, no modulo). */
function home(hash: number, size: number): number {
  return Math.floor(((hash >>> 0) * size) / 4294967296);
}

/** Two 32-bit murmur-style mixes of the UTF-16 code units with different seeds: fast, and spread well enough for keys a person wrote. */
function hash64(text: string): [number, number] {
  let h1 = 0xdeadbeef ^ text.length;
  let h2 = 0x41c6ce57 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return [h1 | 0, h2 | 0];
}
