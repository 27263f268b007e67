import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { BatchImporter } from '../../../src/batch/import/batch-importer.ts';
import type { PrismaClient } from '../../../src/db/database.ts';
import { createLogger } from '../../../src/log/logger.ts';
import { ProviderCatalogue } from '../../../src/payments/provider-catalogue.ts';
import { importFixture, textSource } from '../../support/batch.ts';
import { testDatabaseKinds } from '../../support/database.ts';
import { testCardData } from '../../support/card-data.ts';

const PAN = '4276123456789012';

async function* bytesSource(data: Buffer, size = 4096): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < data.length; i += size) yield data.subarray(i, i + size);
}

/** A Prisma client whose raw writes of rows fail, as when the connection drops mid-import. */
function failingRawWrites(prisma: PrismaClient): PrismaClient {
  return new Proxy(prisma, {
    get(target, property) {
      // Raw SQL reaches Prisma through sqlOf (db/database.ts): $queryRawUnsafe, the rows' INSERT among it.
      if (property === '$queryRawUnsafe') {
        return (sql: string, ...params: unknown[]) =>
          /^\s*INSERT\b/.test(sql)
            ? Promise.reject(new Error('Connection terminated unexpectedly'))
            : target.$queryRawUnsafe(sql, ...params);
      }
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

describe.each(testDatabaseKinds())('failed imports on $name', (kind) => {
  const fx = importFixture(kind, { maxRows: 50, maxBytes: 2_000_000 });
  const { problemsOf } = fx;
  const logger = createLogger({ level: 'silent' });

  const stored = (batchId: string) => fx.test.db.prisma.batch.findUniqueOrThrow({ where: { id: batchId } });
  /** Each file made distinct, so the duplicate check never answers for the case under test. */
  let serial = 0;
  const unique = () => `custom.case${++serial}`;

  async function expectRejected(batchId: string, code: string) {
    expect(await stored(batchId)).toMatchObject({ status: 'REJECTED', fileKey: null });
    const problems = await problemsOf(batchId);
    expect(problems.map((p) => p.code)).toContain(code);
    return problems;
  }

  it.each([
    // With a byte order mark UTF-16 is read (test/batch/import/import.test.ts); without one it cannot be told reliably.
    ['UTF-16LE without a BOM', (text: string) => Buffer.from(text, 'utf16le')],
    ['UTF-16BE without a BOM', (text: string) => Buffer.from(text, 'utf16le').swap16()],
  ])('refuses %s as an encoding problem', async (_name, encode) => {
    const text = `provider,amount,account,${unique()}\nbank-card-token,10.00,token_success,x\n`;
    const batch = await fx.importer.import({ source: bytesSource(encode(text)) });
    expect(batch.status).toBe('REJECTED');
    const problems = await expectRejected(batch.id, 'file.encoding');
    expect(problems[0]!.message).toMatch(/UTF-16/);
  });

  it('refuses a NUL byte in a UTF-8 cell before it reaches the database', async () => {
    const text = `provider,amount,account,description,${unique()}\nbank-card-token,10.00,token_success,a\u0000b,x\n`;
    const batch = await fx.importer.import({ source: textSource(text) });
    const problems = await expectRejected(batch.id, 'file.encoding');
    expect(problems[0]!.message).toMatch(/NUL byte/);
    expect(await fx.test.db.prisma.batchItem.count({ where: { batchId: batch.id } })).toBe(0);
  });

  it('refuses a NUL character in a UTF-16 file', async () => {
    const text = `provider,amount,account,description,${unique()}\nbank-card-token,10.00,token_success,a\u0000b,x\n`;
    const batch = await fx.importer.import({
      source: bytesSource(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')])),
    });
    await expectRejected(batch.id, 'file.encoding');
    expect(await fx.test.db.prisma.batchItem.count({ where: { batchId: batch.id } })).toBe(0);
  });

  it('refuses a NUL byte in a windows-1251 file', async () => {
    const text = `provider;amount;account;description;${unique()}\nbank-card-token;10,00;token_success;Зарплата\u0000;x\n`;
    const batch = await fx.importer.import({ source: bytesSource(iconv.encode(text, 'win1251')) });
    await expectRejected(batch.id, 'file.encoding');
  });

  it('refuses a header of 200,000 columns as one clear problem', async () => {
    const header = `provider,amount,${Array.from({ length: 200_000 }, (_, i) => `c${i}`).join(',')}`;
    const batch = await fx.importer.import({ source: textSource(`${header}\nsbp-b2c,1\n`) });
    const problems = await expectRejected(batch.id, 'column.too-many');
    expect(problems).toHaveLength(1);
    expect(problems[0]!.message).toMatch(/200002 columns/);
  });

  it('reports a quote inside an unquoted card number by line and column, never echoing the number', async () => {
    const text = `provider,amount,pan,${unique()}\nbank-card-russia,100.00,2200000000000004,x\nbank-card-russia,100.00,${PAN}"x,y\n`;
    const batch = await fx.importer.import({ source: textSource(text) });
    const problems = await expectRejected(batch.id, 'csv.syntax');
    expect(problems.find((p) => p.code === 'csv.syntax')).toMatchObject({ line: 3, column: 'pan' });
    for (const problem of problems) expect(`${problem.column} ${problem.message}`).not.toContain(PAN);
    const report = await fx.importer.validate({ source: textSource(text) });
    expect(report.problems.find((p) => p.code === 'csv.syntax')).toMatchObject({ line: 3, column: 'pan' });
    expect(JSON.stringify(report.problems)).not.toContain(PAN);
  });

  it('never echoes a card number from a file whose header is a data row', async () => {
    const batch = await fx.importer.import({
      source: textSource(`bank-card-russia,100.00,${PAN},${unique()}\nbank-card-russia,100.00,${PAN},x\n`),
    });
    const problems = await expectRejected(batch.id, 'column.unknown');
    expect(JSON.stringify(problems.map((p) => [p.column, p.message]))).not.toContain(PAN);
    expect(problems.map((p) => p.column)).toContain('4276********9012');
  });

  it('ends REJECTED saying why when the provider details cannot be read', async () => {
    const client = fx.sb.client();
    const catalogue = new ProviderCatalogue(client, 60_000);
    catalogue.all = () => Promise.reject(new Error('upstream unavailable'));
    const broken = new BatchImporter({
      prisma: fx.test.db.prisma,
      catalogue,
      client,
      limits: { maxRows: 50, maxBytes: 100_000 },
      cardData: testCardData(),
      logger,
    });
    const text = `provider,amount,account,${unique()}\nbank-card-token,10.00,token_success,x\n`;
    const batch = await broken.import({ source: textSource(text) });
    const [problem] = await expectRejected(batch.id, 'import.failed');
    expect(problem!.message).toMatch(/provider details could not be read/);
    const report = await broken.validate({ source: textSource(text) });
    expect(report).toMatchObject({ payable: false, problems: [expect.objectContaining({ code: 'import.failed' })] });
  });

  it('ends REJECTED when the database fails in the middle of the rows', async () => {
    const client = fx.sb.client();
    const broken = new BatchImporter({
      prisma: failingRawWrites(fx.test.db.prisma),
      catalogue: new ProviderCatalogue(client, 60_000),
      client,
      limits: { maxRows: 50, maxBytes: 100_000 },
      cardData: testCardData(),
      logger,
    });
    const batch = await broken.import({
      source: textSource(`provider,amount,account,${unique()}\nbank-card-token,10.00,token_success,x\n`),
    });
    expect(batch).toMatchObject({ status: 'REJECTED', fileKey: null });
    const [problem] = await expectRejected(batch.id, 'import.failed');
    expect(problem!.message).not.toMatch(/Connection terminated/);
  });

  it('ends REJECTED when the upload breaks off', async () => {
    async function* broken(): AsyncGenerator<Uint8Array> {
      yield Buffer.from(`provider,amount,account,${unique()}\nbank-card-token,10.00,tok`);
      throw new Error('aborted');
    }
    const batch = await fx.importer.import({ source: broken() });
    const [problem] = await expectRejected(batch.id, 'import.failed');
    expect(problem!.message).toMatch(/could not be received/);
  });

  it('leaves no batch VALIDATING after any of these', async () => {
    expect(await fx.test.db.prisma.batch.count({ where: { status: 'VALIDATING' } })).toBe(0);
  });
});
