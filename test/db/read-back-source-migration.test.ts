import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDatabase } from '../support/database.ts';
import { testDatabaseKinds } from '../support/database.ts';

const MIGRATION = new URL('../../prisma/migrations/20261126090000_read_back_source/migration.sql', import.meta.url);

describe.each(testDatabaseKinds())('the read-back source migration on $name', (kind) => {
  let test: TestDatabase;
  beforeAll(async () => {
    test = await kind.create();
    await test.db.migrate();
  });
  afterAll(() => test.drop());

  it('renames read-backs recorded as reconcile, and keeps the repairs of a reconciliation', async () => {
    const prisma = test.db.prisma;
    const payment = (paymentId: string) =>
      prisma.payment.create({
        data: {
          paymentId,
          agentId: 'a',
          amount: '1.00',
          currency: 'RUB',
          providerCode: 'bank-card-token',
          recipient: {},
          status: 'COMPLETED',
        },
      });
    await payment('read-1');
    await payment('repaired-1');
    // As earlier versions wrote them: a read-back, and a repair with its audit event.
    await prisma.paymentStatusEvent.createMany({
      data: [
        { paymentId: 'read-1', status: 'PENDING', source: 'request' },
        { paymentId: 'read-1', status: 'IN_PROGRESS', source: 'reconcile' },
        { paymentId: 'read-1', status: 'COMPLETED', source: 'reconcile' },
        { paymentId: 'repaired-1', status: 'IN_PROGRESS', source: 'reconcile' },
        { paymentId: 'repaired-1', status: 'COMPLETED', source: 'reconcile' },
      ],
    });
    await prisma.auditEvent.create({
      data: {
        action: 'reconciliation.repair',
        actor: 'reconciliation',
        paymentId: 'repaired-1',
        detail: { runId: 'r1', from: 'IN_PROGRESS', to: 'COMPLETED' },
      },
    });
    // Applied already by migrate(); run again on the rows above (it is idempotent).
    await test.db.query(await readFile(MIGRATION, 'utf8'), []);
    const history = await prisma.paymentStatusEvent.findMany({
      orderBy: { id: 'asc' },
      select: { paymentId: true, status: true, source: true },
    });
    expect(history.map((h) => `${h.paymentId} ${h.status} ${h.source}`)).toEqual([
      'read-1 PENDING request',
      'read-1 IN_PROGRESS read-back',
      'read-1 COMPLETED read-back',
      'repaired-1 IN_PROGRESS read-back',
      'repaired-1 COMPLETED reconcile',
    ]);
  });
});
