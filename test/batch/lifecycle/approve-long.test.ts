import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textSource } from '../../support/batch.ts';
import { testDatabaseKinds } from '../../support/database.ts';
import { eventually } from '../../support/eventually.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';

/**
 * An approval whose transaction lasts longer than Prisma's default 5 s (a 10,000-row batch
 * on a loaded machine did in CI, and was rolled back): here another session holds the
 * approval lock for 6 s, past that default. The hold is the condition under test, not a
 * wait for something to happen; the approval must then go through.
 */
const postgres = testDatabaseKinds().find((kind) => kind.name === 'postgresql');
describe.skipIf(postgres === undefined)('an approval that takes long, on PostgreSQL (TEST_DATABASE_URL)', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ env: { WORKER_IN_PROCESS: 'false' }, database: postgres! });
  });
  afterAll(() => gw?.close());

  it('is not rolled back by a transaction timeout', async () => {
    const batch = await gw
      .services()
      .importer.import({ source: textSource('provider,amount,account\nbank-card-token,10.00,token_success\n') });
    const holder = new pg.Client({ connectionString: (gw.target as { databaseUrl: string }).databaseUrl });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT pg_advisory_xact_lock(hashtext('payout-gateway:batch-approve'))`);
      const approving = gw.services().batches.approve(batch.id, { approver: 'anonymous' });
      approving.catch(() => {});
      // The approval's transaction is open and waiting for the lock:
      await eventually(async () => {
        const waiting = await holder.query(`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`);
        expect(waiting.rows[0].n).toBe(1);
      }, 60_000);
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      await holder.query('COMMIT');
      expect((await approving).status).toBe('RUNNING');
    } finally {
      await holder.end();
    }
  }, 120_000);

  it('a pause waiting on the batch row (the worker updating it, under load) is not rolled back either', async () => {
    const batch = await gw
      .services()
      .importer.import({ source: textSource('provider,amount,account\nbank-card-token,11.00,token_success\n') });
    expect((await gw.services().batches.approve(batch.id, { approver: 'anonymous' })).status).toBe('RUNNING');
    const holder = new pg.Client({ connectionString: (gw.target as { databaseUrl: string }).databaseUrl });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT id FROM "Batch" WHERE id = $1 FOR UPDATE`, [batch.id]);
      const pausing = gw.services().batches.pause(batch.id);
      pausing.catch(() => {});
      await eventually(async () => {
        const waiting = await holder.query(
          `SELECT count(*)::int AS n FROM pg_locks WHERE locktype IN ('transactionid', 'tuple') AND NOT granted`,
        );
        expect(waiting.rows[0].n).toBeGreaterThanOrEqual(1);
      }, 60_000);
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      await holder.query('COMMIT');
      expect((await pausing).status).toBe('PAUSED');
    } finally {
      await holder.end();
    }
  }, 120_000);
});
