import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { paymentIdFor } from '../../../src/batch/ids.ts';
import type { BatchWorker, WorkerOptions } from '../../../src/batch/pay/batch-worker.ts';
import { testWorker, textSource } from '../../support/batch.ts';
import { testCardData } from '../../support/card-data.ts';
import { testDatabaseKinds } from '../../support/database.ts';
import { eventually } from '../../support/eventually.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';

/**
 * The findings of the pay-path review about leases, fencing, retry budgets and batches that
 * never end. Each test waits for conditions (a held answer, a renewed lease), never for time.
 */
describe.each(testDatabaseKinds())('worker leases and fencing on $name', (kind) => {
  let gw: TestGateway;
  const running: BatchWorker[] = [];
  beforeAll(async () => {
    gw = await startTestGateway({ env: { WORKER_IN_PROCESS: 'false' }, sandbox: { inProgressMs: 50 }, database: kind });
  });
  afterEach(async () => {
    gw.sb.sandbox.releaseHeld();
    await Promise.all(running.splice(0).map((w) => w.stop()));
    await gw.sb.raw('DELETE', '/_sandbox/faults');
  });
  afterAll(() => gw.close());

  const db = () => gw.db.prisma;
  const services = () => gw.services();
  const worker = (options: Partial<WorkerOptions> = {}) => {
    const w = testWorker(gw, options);
    running.push(w);
    return w;
  };
  let amount = 300;
  async function runningBatch(rows = 1, account = 'token_success') {
    const lines = Array.from({ length: rows }, () => `bank-card-token,${amount++}.00,${account}`).join('\n');
    const batch = await services().importer.import({ source: textSource(`provider,amount,account\n${lines}\n`) });
    await services().batches.approve(batch.id, { approver: 'anonymous' });
    return batch;
  }
  const item = (batchId: string) => db().batchItem.findFirstOrThrow({ where: { batchId } });
  const status = async (batchId: string) => (await db().batch.findUniqueOrThrow({ where: { id: batchId } })).status;
  const ended = (batchId: string) => async () => (await status(batchId)) !== 'RUNNING';
  const heldFor = (paymentId: string) => () => expect(gw.sb.sandbox.held().some((h) => h.paymentId === paymentId)).toBe(true);

  it('renews the lease of a row in flight, so no other worker takes it over', async () => {
    const batch = await runningBatch();
    const { paymentId } = await item(batch.id);
    await gw.sb.addFault({ operation: 'execute', kind: 'hold-after' });
    const first = worker({ leaseMs: 600 });
    first.start();
    await eventually(heldFor(paymentId), 60_000);
    const claimed = await item(batch.id);
    // Three renewals seen in the database: the lease outlived its 600 ms several times over.
    let renewals = 0;
    let last = claimed.leaseExpiresAt!.getTime();
    await eventually(async () => {
      const now = (await item(batch.id)).leaseExpiresAt!.getTime();
      if (now > last) {
        renewals++;
        last = now;
      }
      expect(renewals).toBeGreaterThanOrEqual(3);
    }, 60_000);
    const second = worker({ leaseMs: 600 });
    second.start();
    // The second worker looks for work while the first still holds the row.
    await eventually(async () => expect((await item(batch.id)).leaseExpiresAt!.getTime()).toBeGreaterThan(last), 60_000);
    expect(await item(batch.id)).toMatchObject({ status: 'EXECUTING', leaseOwner: first.owner, leaseToken: claimed.leaseToken });
    gw.sb.sandbox.releaseHeld();
    await eventually(async () => expect(await status(batch.id)).toBe('COMPLETED'), 60_000);
    expect(await gw.sb.effects(paymentId)).toMatchObject({ createCalls: 1, executeCalls: 1, executions: 1 });
  });

  it('a worker that lost its row makes no further call for it, and its late writes change nothing', async () => {
    const batch = await runningBatch();
    const { paymentId } = await item(batch.id);
    await gw.sb.addFault({ operation: 'create', kind: 'hold-after' });
    const stale = worker();
    stale.start();
    await eventually(heldFor(paymentId), 60_000);
    // Another worker's claim: a new token, as after the stale one was paused past its lease.
    const token = randomUUID();
    await db().batchItem.updateMany({ where: { paymentId }, data: { leaseOwner: 'thief', leaseToken: token } });
    gw.sb.sandbox.releaseHeld();
    // stop() waits for the row in flight to reach its end in this worker.
    await stale.stop();
    expect(await gw.sb.effects(paymentId)).toMatchObject({ createCalls: 1, executeCalls: 0 });
    expect(await item(batch.id)).toMatchObject({ status: 'CREATING', leaseOwner: 'thief', leaseToken: token });
  });

  it('ends a batch whose rows are all final though no worker finished it (a crash after the last write)', async () => {
    const batch = await runningBatch(2);
    await db().batchItem.updateMany({ where: { batchId: batch.id }, data: { status: 'COMPLETED', finishedAt: new Date() } });
    await worker().drain(ended(batch.id));
    expect(await status(batch.id)).toBe('COMPLETED');
  });

  it('rejects an import whose process died, giving its file key up', async () => {
    const batch = await services().importer.import({
      source: textSource(`provider,amount,account\nbank-card-token,${amount++}.00,token_success\n`),
    });
    // As a killed importer leaves it: VALIDATING, holding the key, started long ago, its last
    // heartbeat long ago too (with the import's own fresh heartbeat, the sweep waited 90 s of real time).
    const longAgo = new Date(Date.now() - 2 * 60 * 60_000);
    await db().batch.update({
      where: { id: batch.id },
      data: { status: 'VALIDATING', fileKey: 'f'.repeat(64), createdAt: longAgo, importHeartbeatAt: longAgo },
    });
    await worker().drain(async () => (await status(batch.id)) !== 'VALIDATING');
    expect(await db().batch.findUniqueOrThrow({ where: { id: batch.id } })).toMatchObject({ status: 'REJECTED', fileKey: null });
    expect(await db().batchProblem.findMany({ where: { batchId: batch.id, code: 'import.interrupted' } })).toHaveLength(1);
  });

  it('keeps the retry budget of each stage: transient failures at create do not use up those of execute', async () => {
    const batch = await runningBatch();
    const { paymentId } = await item(batch.id);
    // One round of failed sends at create (3 sends), then one at execute: each within maxRetries 1.
    await gw.sb.addFault({ operation: 'create', kind: 'fail-before', times: 3 });
    await gw.sb.addFault({ operation: 'execute', kind: 'fail-before', times: 3 });
    await worker({ maxRetries: 1 }).drain(ended(batch.id));
    expect(await item(batch.id)).toMatchObject({ status: 'COMPLETED' });
    expect(await gw.sb.effects(paymentId)).toMatchObject({ creates: 1, executions: 1 });
  });

  it('pays only the batch it was asked to (payout batch run FILE)', async () => {
    const mine = await runningBatch();
    const other = await runningBatch();
    await worker().drain(ended(mine.id), mine.id);
    expect(await status(mine.id)).toBe('COMPLETED');
    expect(await item(other.id)).toMatchObject({ status: 'PENDING', leaseOwner: null });
    await worker().drain(ended(other.id));
  });

  it('keeps an upstream error code it does not know on a failed row', async () => {
    const batch = await runningBatch(1, 'token_execute_failed_new_code');
    await worker().drain(ended(batch.id));
    expect(await item(batch.id)).toMatchObject({ status: 'FAILED', errorCode: 'PROVIDER_NEW_CODE_2027' });
  });

  // PostgreSQL only: PGlite runs in this process and has no connections to cut.
  if (kind.name === 'postgresql')
    it('goes on through database connections cut mid-batch, and the batch finishes', async () => {
      gw.sb.sandbox.faults.rates.latencyMs = 5;
      try {
        const batch = await runningBatch(60);
        const w = worker({ concurrency: 4, perBatchConcurrency: 4 });
        const errors: unknown[] = [];
        process.on('unhandledRejection', (error) => errors.push(error));
        w.start();
        for (let burst = 1; burst <= 3; burst++) {
          // Each burst after more rows were paid, so the cuts land while rows are in flight.
          await eventually(
            async () =>
              expect(await db().batchItem.count({ where: { batchId: batch.id, status: 'COMPLETED' } })).toBeGreaterThanOrEqual(burst * 10),
            120_000,
          );
          await db()
            .$queryRawUnsafe(
              'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
            )
            .catch(() => {});
        }
        await eventually(async () => expect(await status(batch.id)).toBe('COMPLETED'), 120_000);
        expect(errors).toEqual([]);
        for (const row of await db().batchItem.findMany({ where: { batchId: batch.id } })) {
          expect(await gw.sb.effects(row.paymentId)).toMatchObject({ creates: 1, executions: 1 });
        }
      } finally {
        gw.sb.sandbox.faults.rates.latencyMs = 0;
      }
    });

  describe('retryFailedItems', () => {
    it('clears the old transaction id and rrn of a retried row', async () => {
      const batch = await runningBatch(1, 'token_execute_failed');
      await worker().drain(ended(batch.id));
      await db().batchItem.updateMany({ where: { batchId: batch.id }, data: { billingDetails: { transactionId: 'old', rrn: 'old' } } });
      await services().batches.retryFailed(batch.id);
      expect(await item(batch.id)).toMatchObject({ status: 'PENDING', attempt: 2, billingDetails: null });
      await worker().drain(ended(batch.id));
    });

    it('never pays a row again when its earlier payment turned out paid after all', async () => {
      const batch = await runningBatch();
      await worker().drain(ended(batch.id));
      // As the old worker left it: FAILED after an answer it could not read, though the payment completed
      // (a FAILED row keeps its sealed card data, which the COMPLETED one gave up).
      const paid = await item(batch.id);
      const fields = testCardData().seal({ account: 'token_success' }, { batchId: batch.id, line: paid.line });
      await db().batchItem.updateMany({
        where: { batchId: batch.id },
        data: { status: 'FAILED', errorCode: 'upstream.invalid-response', fields },
      });
      await db().batch.update({ where: { id: batch.id }, data: { status: 'COMPLETED_WITH_FAILURES' } });
      await services().batches.retryFailed(batch.id);
      await worker().drain(ended(batch.id));
      const row = await item(batch.id);
      expect(row).toMatchObject({ status: 'NEEDS_REVIEW', errorCode: 'batch.previous-attempt', attempt: 2 });
      expect(row.errorMessage).toContain('COMPLETED');
      expect((await gw.sb.raw('GET', `/_sandbox/payments/${paymentIdFor(batch.id, row.line, 2)}`)).status).toBe(404);
    });

    it('is refused while the batch is still running', async () => {
      const batch = await runningBatch();
      await expect(services().batches.retryFailed(batch.id)).rejects.toMatchObject({ code: 'batch.not-retryable' });
      await worker().drain(ended(batch.id));
    });
  });
});
