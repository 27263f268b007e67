import { createReadStream } from 'node:fs';
import { BatchImporter } from '../../src/batch/import/batch-importer.ts';
import { BatchWorker, type WorkerDeps, type WorkerOptions } from '../../src/batch/pay/batch-worker.ts';
import { createLogger } from '../../src/log/logger.ts';
import { PaymentAttempts } from '../../src/payments/attempt.ts';
import { ProviderCatalogue } from '../../src/payments/provider-catalogue.ts';
import { afterAll, beforeAll } from 'vitest';
import type { BatchProblem } from '../../src/db/generated/client.ts';
import type { TestDatabase, TestDatabaseKind } from './database.ts';
import type { TestGateway } from './gateway.ts';
import { startSandbox, type TestSandbox } from './sandbox.ts';
import { testCardData } from './card-data.ts';

export const sampleFile = (name: string) => new URL(`../../samples/${name}`, import.meta.url).pathname;

export function fileSource(path: string): AsyncIterable<Uint8Array> {
  return createReadStream(path, { highWaterMark: 4096 });
}

export async function* textSource(text: string): AsyncGenerator<Uint8Array> {
  yield Buffer.from(text, 'utf8');
}

/**
 * `rows` rows of (100 + `serial`).xx RUB each, paid by token: a payroll whose amounts differ
 * from every other `serial`'s, so no row is held as a repeat of another test's.
 */
export function tokenPayroll(serial: number, rows: number): string {
  const lines = Array.from({ length: rows }, (_, i) => `bank-card-token,${100 + serial}.${String(i).padStart(2, '0')},token_success`);
  return `provider,amount,account\n${lines.join('\n')}\n`;
}

export function testImporter(sb: TestSandbox, test: TestDatabase, limits = { maxRows: 1000, maxBytes: 1_000_000 }) {
  const client = sb.client();
  return new BatchImporter({
    prisma: test.db.prisma,
    bulk: test.db.bulk,
    catalogue: new ProviderCatalogue(client, 60_000),
    client,
    limits,
    cardData: testCardData(),
    logger: createLogger({ level: 'silent' }),
  });
}

/** A worker over a test gateway's parts, polling fast so tests wait little. */
export function testWorker(
  gw: Pick<TestGateway, 'db' | 'services'>,
  options: Partial<WorkerOptions> = {},
  webhookUrl?: string,
  deps: Partial<WorkerDeps> = {},
): BatchWorker {
  const s = gw.services();
  return new BatchWorker(
    {
      query: gw.db.query,
      client: s.client,
      attempts: new PaymentAttempts(s.client, { backoff: { baseMs: 5, maxMs: 20 } }),
      paymentEvents: s.events,
      batchEvents: s.batchEvents,
      webhookUrl: () => webhookUrl,
      cardData: testCardData(),
      logger: createLogger({ level: 'silent' }),
      ...deps,
    },
    { pollMs: 20, retryBaseMs: 20, leaseMs: 2_000, ...options },
  );
}

export interface ImportFixture {
  sb: TestSandbox;
  test: TestDatabase;
  importer: BatchImporter;
  problemsOf(batchId: string): Promise<BatchProblem[]>;
}

/** A sandbox, a fresh database of the given kind and an importer over both, for one describe block. */
export function importFixture(kind: TestDatabaseKind, limits = { maxRows: 50, maxBytes: 100_000 }): ImportFixture {
  const fx = {
    problemsOf: (batchId: string) =>
      fx.test.db.prisma.batchProblem.findMany({ where: { batchId }, orderBy: [{ line: 'asc' }, { id: 'asc' }] }),
  } as ImportFixture;
  beforeAll(async () => {
    fx.sb = await startSandbox({ balance: '200000.00' });
    fx.test = await kind.create();
    await fx.test.db.migrate();
    fx.importer = testImporter(fx.sb, fx.test, limits);
  });
  afterAll(async () => {
    await fx.sb.close();
    await fx.test.drop();
  });
  return fx;
}
