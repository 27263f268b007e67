import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paymentIdFor } from '../../../src/batch/ids.ts';
import type { WorkerOptions } from '../../../src/batch/pay/batch-worker.ts';
import { fileSource, sampleFile, testWorker, textSource } from '../../support/batch.ts';
import { testDatabaseKinds } from '../../support/database.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';

describe.each(testDatabaseKinds())('batch worker on $name', (kind) => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ env: { WORKER_IN_PROCESS: 'false' }, sandbox: { inProgressMs: 50 }, database: kind });
  });
  afterAll(() => gw.close());

  const services = () => gw.services();
  const db = () => gw.db.prisma;
  const worker = (options: Partial<WorkerOptions> = {}) => testWorker(gw, options, `${gw.gateway.url}/webhooks/payout`);
  const finished = (batchId: string) => async () => {
    const batch = await db().batch.findUniqueOrThrow({ where: { id: batchId } });
    return !['RUNNING', 'VALIDATED'].includes(batch.status);
  };
  /** The batch's rows counted by status, as stored. */
  async function countsInDatabase(batchId: string) {
    const rows = await db().batchItem.groupBy({ by: ['status'], where: { batchId }, _count: { _all: true } });
    return Object.fromEntries(rows.map((r) => [r.status, r._count._all]));
  }

  it('pays the sample file: every outcome, each row at most once', async () => {
    const batch = await services().importer.import({ source: fileSource(sampleFile('payroll-valid.csv')), force: true });
    expect(batch.status).toBe('VALIDATED');
    await services().batches.approve(batch.id, { approver: 'anonymous' });
    await worker({ concurrency: 4 }).drain(finished(batch.id));
    const done = await db().batch.findUniqueOrThrow({ where: { id: batch.id } });
    expect(done.status).toBe('COMPLETED_WITH_FAILURES');
    expect(await countsInDatabase(batch.id)).toEqual({ COMPLETED: 7, FAILED: 3 });
    const items = await db().batchItem.findMany({ where: { batchId: batch.id }, orderBy: { line: 'asc' } });
    expect(items.map((i) => `${i.reference}:${i.status}:${i.errorCode ?? ''}`)).toEqual([
      'EMP-001:COMPLETED:',
      'EMP-002:COMPLETED:',
      'EMP-003:COMPLETED:',
      'EMP-004:COMPLETED:',
      'EMP-005:COMPLETED:',
      'EMP-006:COMPLETED:',
      'EMP-007:FAILED:BILLING_DECLINED',
      'EMP-008:FAILED:BILLING_DECLINED',
      'EMP-009:COMPLETED:',
      'EMP-010:FAILED:BILLING_DECLINED',
    ]);
    for (const item of items) {
      const effects = await gw.sb.effects(item.paymentId);
      expect(effects.creates, item.paymentId).toBe(1);
      expect(effects.executions, item.paymentId).toBeLessThanOrEqual(1);
    }
    // Each row is tracked as a payment that knows its batch and line.
    const tracked = await services().tracker.find(items[2]!.paymentId);
    expect(tracked).toMatchObject({ batchId: batch.id, batchRow: 4, status: 'COMPLETED' });
    expect(items[0]!.billingDetails).toMatchObject({ transactionId: expect.any(String) });
  });

  it('retries transient failures and still creates each payment once', async () => {
    const batch = await services().importer.import({
      source: textSource('provider,amount,account\nbank-card-token,10.00,token_success\nbank-card-token,11.00,token_success\n'),
      force: true,
    });
    await services().batches.approve(batch.id, { approver: 'anonymous' });
    await gw.sb.addFault({ operation: 'create', kind: 'fail-after', times: 2 });
    await gw.sb.addFault({ operation: 'execute', kind: 'drop-after', times: 1 });
    await gw.sb.addFault({ operation: 'create', kind: 'fail-before', times: 4 });
    await worker().drain(finished(batch.id));
    expect(await countsInDatabase(batch.id)).toEqual({ COMPLETED: 2 });
    for (const line of [2, 3]) {
      const effects = await gw.sb.effects(paymentIdFor(batch.id, line, 1));
      expect(effects).toMatchObject({ creates: 1, executions: 1 });
    }
  });

  it('fails a row after the bounded retries of a transient error', async () => {
    const batch = await services().importer.import({
      source: textSource('provider,amount,account\nbank-card-token,13.00,token_success\n'),
      force: true,
    });
    await services().batches.approve(batch.id, { approver: 'anonymous' });
    await gw.sb.addFault({ operation: 'create', kind: 'fail-before', times: 4 * 3 });
    await worker({ maxRetries: 2 }).drain(finished(batch.id));
    const [item] = await db().batchItem.findMany({ where: { batchId: batch.id } });
    expect(item).toMatchObject({ status: 'FAILED', errorCode: 'payout.internal.error', retries: 2 });
    expect((await gw.sb.raw('GET', `/_sandbox/payments/${item!.paymentId}`)).body.creates).toBe(0);
  });
});
