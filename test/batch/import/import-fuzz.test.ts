import fc from 'fast-check';
import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BatchImporter } from '../../../src/batch/import/batch-importer.ts';
import { testImporter } from '../../support/batch.ts';
import { testDatabaseKinds, type TestDatabase } from '../../support/database.ts';
import { startSandbox, type TestSandbox } from '../../support/sandbox.ts';

/** Characters that break CSV readers and databases: quotes, delimiters, line ends, BOM, a lone surrogate. */
const nasty = ['"', ',', ';', '\t', '\r', '\n', '\r\n', '\uFEFF', '\uD800', ' ', '\u00A0', 'я', '€', '😀', 'x', '1', '.'];

const cell = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'bank-card-token',
      'token_success',
      'sbp-b2c',
      'sbp_bank_id_success',
      '79001234567',
      '10.00',
      '1 500,50',
      '0',
      '-5',
      '4276123456789012',
      '',
    ),
  },
  { weight: 2, arbitrary: fc.array(fc.constantFrom(...nasty), { maxLength: 12 }).map((parts) => parts.join('')) },
  { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
);

const quoted = (value: string) => `"${value.replace(/"/g, '""')}"`;

const headerCell = fc.oneof(
  fc.constantFrom(
    'provider',
    'amount',
    'account',
    'bankId',
    'pan',
    'reference',
    'currency',
    'description',
    'custom.x',
    'PROVIDER',
    'iban',
    '',
  ),
  cell,
);

/** A file that looks like a payroll CSV, with anything in its cells. */
const payrollText = fc
  .record({
    header: fc.oneof(
      {
        weight: 3,
        arbitrary: fc.constantFrom<string[]>(
          ['provider', 'amount', 'account'],
          ['provider', 'amount', 'account', 'bankId', 'reference'],
          ['Provider', 'AMOUNT', 'pan', 'description', 'custom.x'],
        ),
      },
      { weight: 1, arbitrary: fc.array(headerCell, { minLength: 0, maxLength: 8 }) },
    ),
    rows: fc.array(fc.array(cell, { maxLength: 9 }), { maxLength: 12 }),
    delimiter: fc.constantFrom(',', ',', ';', '\t', '|'),
    newline: fc.constantFrom('\n', '\r\n', '\r'),
    quoteSome: fc.array(fc.boolean(), { minLength: 10, maxLength: 10 }),
    bom: fc.boolean(),
    trailer: fc.constantFrom('', '\n', '\n\n', '  \r\n', '"'),
    // Now and then a NUL somewhere: it ends the reading of a file at once, so not in every one.
    nulAt: fc.oneof({ weight: 7, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.nat() }),
  })
  .map(({ header, rows, delimiter, newline, quoteSome, bom, trailer, nulAt }) => {
    const line = (cells: string[]) => cells.map((value, i) => (quoteSome[i % 10] ? quoted(value) : value)).join(delimiter);
    const text = `${bom ? '\uFEFF' : ''}${[header, ...rows].map(line).join(newline)}${trailer}`;
    if (nulAt === null) return text;
    const at = nulAt % (text.length + 1);
    return `${text.slice(0, at)}\u0000${text.slice(at)}`;
  });

/** A valid file now and then, so VALIDATED is reached too. */
const goodText = fc
  .array(fc.tuple(fc.integer({ min: 1, max: 999 }), fc.integer({ min: 0, max: 99 })), { minLength: 1, maxLength: 5 })
  .map(
    (amounts) =>
      `provider,amount,account\n${amounts.map(([whole, cents]) => `bank-card-token,${whole}.${String(cents).padStart(2, '0')},token_success`).join('\n')}\n`,
  );

const encoding = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('utf8', 'win1251') },
  { weight: 1, arbitrary: fc.constantFrom('utf16le', 'utf16be', 'latin1', 'utf16-bom') },
);

const encoded = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .tuple(fc.oneof({ weight: 3, arbitrary: payrollText }, { weight: 1, arbitrary: goodText }), encoding)
      .map(([text, name]) => {
        if (name === 'utf16-bom') return Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode(text, 'utf16le')]);
        return iconv.encode(text, name);
      }),
  },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 3000 }).map((bytes) => Buffer.from(bytes)) },
);

const upload = fc.record({ bytes: encoded, chunk: fc.integer({ min: 1, max: 5000 }), force: fc.boolean(), validate: fc.boolean() });

async function* chunksOf(bytes: Buffer, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

describe('importing arbitrary bytes', () => {
  let sb: TestSandbox;
  let test: TestDatabase;
  let importer: BatchImporter;
  beforeAll(async () => {
    sb = await startSandbox({ balance: '100000.00' });
    test = await testDatabaseKinds()[0]!.create();
    await test.db.migrate();
    importer = testImporter(sb, test, { maxRows: 10, maxBytes: 4000 });
  });
  afterAll(async () => {
    await sb.close();
    await test.drop();
  });

  it('always ends in a report or a VALIDATED or REJECTED batch, never a throw or a batch left VALIDATING', async () => {
    await fc.assert(
      fc.asyncProperty(upload, async ({ bytes, chunk, force, validate }) => {
        if (validate) {
          const report = await importer.validate({ source: chunksOf(bytes, chunk), force });
          expect(report.payable).toBe(report.errorCount === 0);
        }
        const batch = await importer.import({ source: chunksOf(bytes, chunk), force });
        expect(['VALIDATED', 'REJECTED']).toContain(batch.status);
        const stored = await test.db.prisma.batch.findUniqueOrThrow({ where: { id: batch.id } });
        expect(stored.status).toBe(batch.status);
        if (stored.status === 'REJECTED') {
          expect(stored.fileKey).toBeNull();
          expect(await test.db.prisma.batchProblem.count({ where: { batchId: batch.id, severity: 'error' } })).toBeGreaterThan(0);
        }
      }),
      // A run that hangs fails instead of stalling the suite; runs stay few for a loaded machine.
      { numRuns: 100, timeout: 20_000 },
    );
    expect(await test.db.prisma.batch.count({ where: { status: 'VALIDATING' } })).toBe(0);
  }, 120_000);
});
