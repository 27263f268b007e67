import { PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Prisma } from '../../src/db/generated/client.ts';
import { pendingSchemaChange, readMigrations } from '../../src/db/migrations.ts';
import { testDatabaseKinds, type TestDatabase } from '../support/database.ts';

describe('committed migrations', () => {
  it('match prisma/schema.prisma (a schema change without its migration fails here)', async () => {
    const shadow = await PGlite.create();
    try {
      expect(await pendingSchemaChange(new PrismaPGlite(shadow))).toBe('');
    } finally {
      await shadow.close();
    }
  });

  it('carry the lock file the standard prisma migrate reads', async () => {
    const list = await readMigrations();
    expect(list.lockfile.content).toMatch(/provider = "postgresql"/);
    expect(list.migrationDirectories.length).toBeGreaterThan(0);
  });
});

describe.each(testDatabaseKinds())('migrations on $name', (kind) => {
  let test: TestDatabase;
  beforeAll(async () => {
    test = await kind.create({ empty: true });
  });
  afterAll(() => test.drop());

  it('apply every migration once, then nothing', async () => {
    const names = (await readMigrations()).migrationDirectories.map((d) => d.path);
    expect(await test.db.migrate()).toEqual(names);
    expect(await test.db.migrate()).toEqual([]);
    const rows = await test.db.prisma.$queryRaw<Array<{ migration_name: string; finished_at: Date | null }>>`
      SELECT migration_name, finished_at FROM _prisma_migrations ORDER BY migration_name`;
    expect(rows.map((r) => r.migration_name)).toEqual(names);
    expect(rows.every((r) => r.finished_at !== null)).toBe(true);
  });

  it('store a payment with exact decimal money and its status history', async () => {
    await test.db.prisma.payment.create({
      data: {
        paymentId: 'db-1',
        agentId: 'agent-1',
        amount: new Prisma.Decimal('1234567890123456.78'),
        currency: 'RUB',
        providerCode: 'sbp-b2c',
        recipient: { account: '*******4567', bankId: 'sbp_bank_id_success' },
        history: {
          create: [
            { status: 'PENDING', source: 'create' },
            { status: 'READY', source: 'create' },
          ],
        },
      },
    });
    const stored = await test.db.prisma.payment.findUniqueOrThrow({
      where: { paymentId: 'db-1' },
      include: { history: { orderBy: { id: 'asc' } } },
    });
    expect(stored.amount.toFixed(2)).toBe('1234567890123456.78');
    expect(stored.status).toBe('PENDING');
    expect(stored.history.map((h) => h.status)).toEqual(['PENDING', 'READY']);
  });

  it('refuses a second payment with the same paymentId', async () => {
    const data = { paymentId: 'db-2', agentId: 'a', amount: '1.00', currency: 'RUB', providerCode: 'sbp-b2c', recipient: {} };
    await test.db.prisma.payment.create({ data });
    await expect(test.db.prisma.payment.create({ data })).rejects.toMatchObject({ code: 'P2002' });
  });
});
