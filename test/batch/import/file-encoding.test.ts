import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { CsvFileError, openPayrollCsv, type CsvRow } from '../../../src/batch/import/read/csv-reader.ts';

/** A UTF-8 file with a bad byte is refused naming where it is, wherever it is; a genuine windows-1251 file is still read. */

async function* chunks(data: Buffer, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < data.length; i += size) yield data.subarray(i, i + size);
}

async function read(data: Buffer, chunkSize = 64 * 1024) {
  const csv = await openPayrollCsv(chunks(data, chunkSize), { maxBytes: 10_000_000 });
  const rows: CsvRow[] = [];
  for await (const row of csv.rows) rows.push(row);
  return { csv, rows };
}

async function problemsOf(data: Buffer, chunkSize?: number) {
  try {
    await read(data, chunkSize);
  } catch (error) {
    if (error instanceof CsvFileError) return error.problems;
    throw error;
  }
  throw new Error('expected a CsvFileError');
}

const header = 'provider,amount,account,description\n';
const row = (i: number) => `sbp-b2c,${i},7900123${String(i).padStart(4, '0')},Зарплата за ноябрь\n`;
const rows = (count: number, from = 0) => Array.from({ length: count }, (_, i) => row(from + i)).join('');
const utf8 = (text: string) => Buffer.from(text, 'utf8');

/** `text` with `bad` put in just before the first occurrence of `marker` after `from`: the byte's offset in the file and its line. */
function withBadBytes(text: string, marker: string, bad: number[], from = 0) {
  const at = text.indexOf(marker, from);
  const before = utf8(text.slice(0, at));
  const data = Buffer.concat([before, Buffer.from(bad), utf8(text.slice(at))]);
  const line = text.slice(0, at).split('\n').length;
  return { data, offset: before.length, line };
}

const expectProblemAt = (problems: Awaited<ReturnType<typeof problemsOf>>, where: { line: number; offset: number }) => {
  expect(problems).toEqual([
    {
      line: where.line,
      column: null,
      code: 'file.encoding',
      // Bytes are counted from 1, as the NUL message counts characters.
      message: expect.stringMatching(
        new RegExp(`^the file is UTF-8 but byte ${where.offset + 1} \\(0x[0-9A-F]{2}, line ${where.line}\\) is not;`),
      ),
    },
  ]);
};

describe('a UTF-8 file with bytes that are not UTF-8', () => {
  it('is refused naming the line and byte when the bad byte is among the first ones (it was read as windows-1251)', async () => {
    const text = header + rows(50);
    const bad = withBadBytes(text, 'Зарплата', [0xff]);
    expect(bad.line).toBe(2);
    expectProblemAt(await problemsOf(bad.data), bad);
  });

  it('is refused when the bad byte is in the header itself', async () => {
    const bad = withBadBytes(header + rows(50), 'amount', [0xe9]);
    expectProblemAt(await problemsOf(bad.data), { line: 1, offset: bad.offset });
  });

  it('is refused when the bad byte is in the middle, past the bytes encoding is told from', async () => {
    const text = header + rows(3_000);
    const bad = withBadBytes(text, 'Зарплата', [0xd0, 0x41], utf8(header + rows(1_500)).length);
    expect(bad.offset).toBeGreaterThan(64 * 1024);
    expectProblemAt(await problemsOf(bad.data), bad);
  });

  it('is refused when the bad byte is on the last line, without a line end after it', async () => {
    const text = header + rows(200) + 'sbp-b2c,1,79001230000,конец';
    const bad = withBadBytes(text, 'конец', [0xc3]);
    expectProblemAt(await problemsOf(bad.data), bad);
  });

  it('is refused when the file ends inside a character', async () => {
    const text = header + rows(20);
    const data = Buffer.concat([utf8(text), Buffer.from([0xd0])]);
    expectProblemAt(await problemsOf(data), { line: 22, offset: data.length - 1 });
  });

  it('is refused when its head is ASCII but for the bad byte, and its Cyrillic comes later', async () => {
    const ascii = Array.from({ length: 2_000 }, (_, i) => `sbp-b2c,${i},7900123${String(i).padStart(4, '0')},salary\n`).join('');
    const text = header + ascii + rows(3_000);
    const bad = withBadBytes(text, 'salary', [0xe9]);
    expectProblemAt(await problemsOf(bad.data), bad);
  });

  it.each([1, 2, 3, 5, 7, 64])(
    'is refused at the same line and byte when read in chunks of %i bytes, the bad sequence cut by a chunk end',
    async (size) => {
      // A two-byte lead, then not a continuation byte: a chunk may end between them.
      const text = header + rows(30);
      for (const [marker, from] of [
        ['Зарплата', 0],
        ['ноябрь', utf8(header + rows(10)).length],
      ] as const) {
        const bad = withBadBytes(text, marker, [0xd0, 0x20], from);
        expectProblemAt(await problemsOf(bad.data, size), bad);
        const lone = withBadBytes(text, marker, [0xe2, 0x82], from);
        expectProblemAt(await problemsOf(lone.data, size), lone);
      }
    },
  );
});

describe('files in other encodings', () => {
  it('reads a genuine windows-1251 file, capitals with Ё that happen to look like UTF-8 included', async () => {
    // Ф Ё (D4 A8), П ё (CF B8) and Я » (DF BB) are valid UTF-8 sequences by chance; the rest of the Cyrillic is not.
    const text =
      'provider;amount;lastName;firstName;purpose\r\n' + 'bank-card-russia-gph;1 500,50;ФЁДОРОВ;Пётр;Дизайн «ЗАРЯ»\r\n'.repeat(20);
    const { csv, rows } = await read(iconv.encode(text, 'win1251'), 7);
    expect(csv.encoding).toBe('windows-1251');
    expect(rows).toHaveLength(20);
    expect(rows[19]!.cells).toMatchObject({ lastName: 'ФЁДОРОВ', firstName: 'Пётр', purpose: 'Дизайн «ЗАРЯ»' });
  });

  it('reads a windows-1251 file whose head is ASCII but for a few letters', async () => {
    const ascii = Array.from({ length: 3_000 }, (_, i) => `sbp-b2c;${i};7900123${String(i).padStart(4, '0')};salary\r\n`).join('');
    const text =
      'provider;amount;account;description\r\n' + 'sbp-b2c;1;79001230000;Премия\r\n' + ascii + 'sbp-b2c;2;79001230001;Аванс за ноябрь\r\n';
    const { csv, rows } = await read(iconv.encode(text, 'win1251'));
    expect(csv.encoding).toBe('windows-1251');
    expect(rows.at(-1)!.cells.description).toBe('Аванс за ноябрь');
  });

  it.each([
    ['LE', (text: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')])],
    ['BE', (text: string) => Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()])],
  ])('reads UTF-16 %s with a BOM in odd-sized chunks', async (name, encode) => {
    const { csv, rows } = await read(encode('provider\tamount\tlastName\r\n' + 'sbp-b2c\t1,50\tИванов\r\n'.repeat(100)), 3);
    expect(csv.encoding).toBe(`utf-16${name.toLowerCase()}`);
    expect(rows).toHaveLength(100);
    expect(rows[99]!.cells.lastName).toBe('Иванов');
  });
});
