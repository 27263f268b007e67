import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findPayingRows } from '../../src/batch/import/sql/find-paying-rows.ts';
import type { TestDatabase } from '../support/database.ts';
import { testDatabaseKinds } from '../support/database.ts';

const MIGRATION = new URL('../../prisma/migrations/20261126204348_approved_payees/migration.sql', import.meta.url);

/**
 * The duplicate check looks payees up in "ApprovedPayee", written at each approval. Rows of
 * batches approved before that table existed are copied into it by the migration, or a
 * re-upload of a payroll paid before the upgrade would pay everyone again.
 */
describe.each(testDatabaseKinds())('the approved-payees migration on $name', (kind) => {
  let test: TestDatabase;
  beforeAll(async () => {
    test = await kind.create();
    await test.db.migrate();
  });
  afterAll(() => test.drop());

  it('copies the keyed rows of approved batches, and only those, so that they are found again', async () => {
    const prisma = test.db.prisma;
    const key = (n: number) => n.toString(16).padStart(32, '0');
    const batch = (id: string, approvedAt: Date | null) =>
      prisma.batch.create({
        data: { id, name: id, fileHash: '0'.repeat(64), fileBytes: 1, status: approvedAt === null ? 'VALIDATED' : 'COMPLETED', approvedAt },
      });
    const item = (batchId: string, line: number, payeeKey: string | null, status: 'COMPLETED' | 'PENDING' | 'INVALID') =>
      prisma.batchItem.create({
        data: {
          batchId,
          line,
          paymentId: `${batchId}-${line}`,
          providerCode: 'bank-card-token',
          amount: '300.00',
          currency: 'RUB',
          fields: {},
          payeeKey,
          status,
          finishedAt: status === 'COMPLETED' ? new Date() : null,
        },
      });
    // As an earlier version left them: rows with their payee keys, no ApprovedPayee rows.
    await batch('paidbefore', new Date());
    await item('paidbefore', 2, key(1), 'COMPLETED');
    await item('paidbefore', 3, null, 'INVALID');
    await batch('neverapproved', null);
    await item('neverapproved', 2, key(2), 'PENDING');

    const statements = (await readFile(MIGRATION, 'utf8')).split('-- Backfill');
    await test.db.query(statements[1]!.replace(/^[^\n]*\n/, ''), []);

    const registered = await prisma.approvedPayee.findMany({ select: { payeeKey: true, item: { select: { paymentId: true } } } });
    expect(registered.map((r) => `${r.payeeKey} ${r.item.paymentId}`)).toEqual([`${key(1)} paidbefore-2`]);
    const found = await findPayingRows(test.db.query, [key(1), key(2)], { exceptBatchId: 'upload', windowDays: 35 });
    expect(found.map((row) => row.paymentId)).toEqual(['paidbefore-2']);
  });
});
