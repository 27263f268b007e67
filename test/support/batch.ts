import { createReadStream } from 'node:fs';
import { BatchImporter } from '../../src/batch/batch-importer.ts';
import { createLogger } from '../../src/log/logger.ts';
import { ProviderCatalogue } from '../../src/payments/provider-catalogue.ts';
import type { TestDatabase } from './database.ts';
import type { TestSandbox } from './sandbox.ts';

export const sampleFile = (name: string) => new URL(`../../samples/${name}`, import.meta.url).pathname;

export function fileSource(path: string): AsyncIterable<Uint8Array> {
  return createReadStream(path, { highWaterMark: 4096 });
}

export async function* textSource(text: string): AsyncGenerator<Uint8Array> {
  yield Buffer.from(text, 'utf8');
}

export function testImporter(sb: TestSandbox, test: TestDatabase, limits = { maxRows: 1000, maxBytes: 1_000_000 }) {
  const client = sb.client();
  return new BatchImporter({
    prisma: test.db.prisma,
    catalogue: new ProviderCatalogue(client, 60_000),
    client,
    limits,
    logger: createLogger({ level: 'silent' }),
  });
}
