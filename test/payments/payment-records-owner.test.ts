import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourceFilesUnder } from '../support/source-files.ts';

/**
 * Payment and PaymentStatusEvent have one writer, payments/payment-records.ts with its
 * statements in payments/sql/: every status change goes through the table of
 * payments/status.ts there, and nowhere else can a write skip it.
 */
const root = join(import.meta.dirname, '../..');
const src = join(root, 'src');
const owners = (file: string) => file === 'payments/payment-records.ts' || file.startsWith('payments/sql/');

const writes = [
  /\b(INSERT\s+INTO|UPDATE|DELETE\s+FROM|TRUNCATE|COPY)\s+"(Payment|PaymentStatusEvent)"/gi,
  /\.(payment|paymentStatusEvent)\s*\.\s*(create|createMany|createManyAndReturn|update|updateMany|updateManyAndReturn|upsert|delete|deleteMany)\b/g,
];

function writesIn(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return writes.flatMap((pattern) =>
    [...text.matchAll(pattern)].map((match) => `${relative(root, file)}:${text.slice(0, match.index).split('\n').length}: ${match[0]}`),
  );
}

describe('the payment record', () => {
  it('is written by payments/payment-records.ts and payments/sql/ only', () => {
    const outside = sourceFilesUnder(src, { skip: ['generated'] }).filter((file) => !owners(relative(src, file)));
    expect(outside.flatMap(writesIn)).toEqual([]);
  });

  it('is written there (the patterns still find the writes)', () => {
    const inside = sourceFilesUnder(src, { skip: ['generated'] }).filter((file) => owners(relative(src, file)));
    const found = inside.flatMap(writesIn).join('\n');
    expect(found).toMatch(/INSERT INTO "Payment"/);
    expect(found).toMatch(/INSERT INTO "PaymentStatusEvent"/);
    expect(found).toMatch(/UPDATE "Payment"/);
    expect(found).toMatch(/\.payment\.update/);
    expect(found).toMatch(/\.paymentStatusEvent\.create/);
  });
});
