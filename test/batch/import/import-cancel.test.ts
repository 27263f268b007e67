import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchImporter } from '../../../src/batch/import/batch-importer.ts';
import type { BulkWriter } from '../../../src/db/bulk-insert.ts';
import { createLogger } from '../../../src/log/logger.ts';
import { testCardData } from '../../support/card-data.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';
import { testDatabaseKinds } from '../../support/database.ts';
import { eventually } from '../../support/eventually.ts';

/**
 * Issue 18, finding 7: a VALIDATING batch could not be cancelled (BATCH_NOT_CANCELLABLE).
 * Cancelled while its file is read, it ends CANCELLED, the import stops, and no row of it
 * is left to pay or keeps card data; the file can be uploaded again.
 */
describe.each(testDatabaseKinds())('cancelling an import on $name', (kind) => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ env: { WORKER_IN_PROCESS: 'false', IMPORT_STALE_MS: '600' }, database: kind });
  });
  afterAll(() => gw.close());

  /** The batch being imported, once some of its rows are written. */
  const importingWithRows = () =>
    eventually(async () => {
      const found = await gw.db.prisma.batch.findFirstOrThrow({ where: { status: 'VALIDATING' } });
      expect(await gw.db.prisma.batchItem.count({ where: { batchId: found.id } })).toBeGreaterThan(0);
      return found;
    }, 60_000);

  /** The gateway's importer with a writer of the test's, and the heartbeat every staleMs / 6. */
  const importerWith = (bulk: BulkWriter, staleMs: number) => {
    const s = gw.services();
    return new BatchImporter({
      prisma: gw.db.prisma,
      bulk,
      query: gw.db.query,
      catalogue: s.catalogue,
      client: s.client,
      limits: { maxRows: 100_000, maxBytes: 10_000_000 },
      staleMs,
      cardData: testCardData(),
      logger: createLogger({ level: 'silent' }),
    });
  };

  it('cancels a batch while its rows are being read, and the import stops there', async () => {
    const db = gw.db.prisma;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const header = 'reference,provider,amount,account\n';
    const rows = (from: number, count: number) =>
      Array.from({ length: count }, (_, i) => `X-${from + i},bank-card-token,${from + i + 1}.00,token_success\n`).join('');
    // The first chunk of rows is written, then the writer waits until the cancel: the import is
    // caught mid-file whatever the machine's speed.
    let written = 0;
    const bulk: BulkWriter = async (table, batchRows) => {
      await gw.db.bulk(table, batchRows);
      if (table.name === 'BatchItem' && batchRows.length > 0 && written++ === 0) await held;
    };
    const importer = importerWith(bulk, 600);
    const source = (async function* () {
      yield Buffer.from(header + rows(0, 10_000));
    })();
    const importing = importer.import({ source, uploadedBy: 'anonymous' });
    const batch = await importingWithRows();
    // What the page and the CLI are offered while the file is read (a review found no discard there).
    const reply = await gw.gql(`query($id: ID!) { batch(id: $id) { status actions } }`, { id: batch.id });
    expect(reply.body.data.batch).toEqual({ status: 'VALIDATING', actions: ['DISCARD'] });

    const cancelled = await gw.services().batches.cancel(batch.id);
    expect(cancelled.status).toBe('CANCELLED');
    release();
    const result = await importing;
    expect(result).toMatchObject({ id: batch.id, status: 'CANCELLED', fileKey: null });
    expect(await db.batchItem.count({ where: { batchId: batch.id, status: { not: 'CANCELLED' } } })).toBe(0);
    const sealed = await db.$queryRaw<
      Array<{ n: number }>
    >`SELECT count(*)::int AS n FROM "BatchItem" WHERE "batchId" = ${batch.id} AND fields ? '$sealed'`;
    expect(sealed[0]!.n).toBe(0);
    const audit = await db.auditEvent.findFirstOrThrow({ where: { batchId: batch.id } });
    expect(audit).toMatchObject({ action: 'batch.discard', detail: expect.objectContaining({ from: 'VALIDATING' }) });
  });

  it('an import that fails after its batch was cancelled leaves it CANCELLED, not REJECTED', async () => {
    const db = gw.db.prisma;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let cancelledYet = false;
    let written = 0;
    // The first chunk is written and waits for the cancel; every write after it fails, as a
    // database gone away would, before any heartbeat could notice the cancel (a beat every
    // 100 s here).
    const bulk: BulkWriter = async (table, batchRows) => {
      if (cancelledYet) throw new Error('the database went away');
      await gw.db.bulk(table, batchRows);
      if (table.name === 'BatchItem' && batchRows.length > 0 && written++ === 0) await held;
    };
    const importer = importerWith(bulk, 600_000);
    const rows = Array.from({ length: 10_000 }, (_, i) => `Y-${i},bank-card-token,${i + 1}.00,token_success\n`).join('');
    const source = (async function* () {
      yield Buffer.from('reference,provider,amount,account\n' + rows);
    })();
    const importing = importer.import({ source, uploadedBy: 'anonymous' });
    const batch = await importingWithRows();
    expect((await gw.services().batches.cancel(batch.id)).status).toBe('CANCELLED');
    cancelledYet = true;
    release();
    const result = await importing;
    expect(result).toMatchObject({ id: batch.id, status: 'CANCELLED' });
    expect(await db.batchItem.count({ where: { batchId: batch.id, status: { not: 'CANCELLED' } } })).toBe(0);
  });
});
