import { describe, expect, it } from 'vitest';
import { FileKeyHash } from '../../../src/batch/import/file-key.ts';
import { FirstLines } from '../../../src/batch/import/read/first-lines.ts';
import { payeeText } from '../../../src/batch/import/payee-key.ts';

function keyOf(data: Buffer | string, chunkSize = Infinity): string {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const hash = new FileKeyHash();
  const size = Math.min(chunkSize, Math.max(bytes.length, 1));
  for (let i = 0; i < bytes.length; i += size) hash.update(bytes.subarray(i, i + size));
  return hash.digest();
}

describe('normalised file key', () => {
  const text = 'provider,amount,description\nsbp-b2c,1.00,"two\nlines"\nsbp-b2c,2.00,x\n';

  it('is the same for the file re-saved with CRLF, CR, a BOM or trailing blank lines and spaces', () => {
    const key = keyOf(text);
    for (const resaved of [
      text.replace(/\n/g, '\r\n'),
      text.replace(/\n/g, '\r'),
      `\uFEFF${text}`,
      `${text}\n\n`,
      text.slice(0, -1),
      `${text}   \t\r\n \n`,
      `\uFEFF${text.replace(/\n/g, '\r\n')}\r\n`,
    ]) {
      expect(keyOf(resaved)).toBe(key);
    }
  });

  it('does not depend on where chunks are cut, even inside a BOM or a CRLF', () => {
    const resaved = `\uFEFF${text.replace(/\n/g, '\r\n')} \r\n`;
    const key = keyOf(text);
    for (const size of [1, 2, 3, 4, 5, 7, 64]) expect(keyOf(resaved, size)).toBe(key);
  });

  it('differs when the content differs, inside lines or by blank lines between rows', () => {
    const key = keyOf(text);
    expect(keyOf(text.replace('2.00', '2.01'))).not.toBe(key);
    expect(keyOf(text.replace('sbp-b2c,2.00', '\nsbp-b2c,2.00'))).not.toBe(key);
    expect(keyOf(text.replace('1.00,', '1.00 ,'))).not.toBe(key);
    expect(keyOf(`\uFEFF\uFEFF${text}`)).not.toBe(key);
  });

  it('hashes an empty and a blank file alike, and a short file whole', () => {
    expect(keyOf('')).toBe(keyOf(' \r\n\r\n'));
    expect(keyOf('ab')).not.toBe(keyOf('a'));
    expect(keyOf(Buffer.from([0xef, 0xbb]))).not.toBe(keyOf(''));
  });
});

describe('payee text and the first line of each key', () => {
  const row = { providerCode: 'bank-card-russia' as const, amount: '1500.00', fields: { pan: '2200000000000004', lastName: 'Ivanov' } };
  const recipientKey = (
    r: typeof row | (Omit<typeof row, 'providerCode' | 'fields'> & { providerCode: string; fields: Record<string, string> }),
  ) => `${payeeText(r as typeof row)}\u0000${r.amount}`;

  it('remembers the first line of every key of a large file in a few bytes a key', () => {
    const lines = new FirstLines();
    for (let i = 0; i < 200_000; i++) expect(lines.firstOrAdd(recipientKey({ ...row, amount: `${i}.00` }), i + 2)).toBeUndefined();
    expect(lines.firstOrAdd(recipientKey({ ...row, amount: '0.00' }), 300_000)).toBe(2);
    expect(lines.firstOrAdd(recipientKey({ ...row, amount: '199999.00' }), 300_001)).toBe(200_001);
    expect(lines.firstOrAdd(recipientKey({ ...row, amount: '200000.00' }), 300_002)).toBeUndefined();
    // A Map of text keys holds about 100 bytes a key; these arrays 12 a slot, at most 1.9 slots a key.
    expect(lines.bytes / 200_000).toBeLessThanOrEqual(24);
  });

  it('is the same whatever the order, case and spaces of the fields, and differs with provider, amount or recipient', () => {
    const key = recipientKey(row);
    expect(recipientKey({ ...row, fields: { lastName: 'Ivanov', pan: '2200000000000004' } })).toBe(key);
    expect(recipientKey({ ...row, fields: { lastName: ' IVANOV ', pan: '2200000000000004' } })).toBe(key);
    // What the payment is for is not who is paid.
    expect(recipientKey({ ...row, fields: { ...row.fields, description: 'November salary', purpose: 'pay' } })).toBe(key);
    expect(recipientKey({ ...row, amount: '1500.01' })).not.toBe(key);
    expect(recipientKey({ ...row, providerCode: 'bank-card-russia-fio' })).not.toBe(key);
    expect(recipientKey({ ...row, fields: { ...row.fields, lastName: 'Ivanova' } })).not.toBe(key);
    expect(recipientKey({ ...row, fields: { pan: '2200000000000004', firstName: 'Ivanov' } })).not.toBe(key);
  });
});
