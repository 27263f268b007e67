import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchService, BatchStateError } from '../../../src/batch/lifecycle/batch-service.ts';
import { fileSource, sampleFile, testWorker, textSource } from '../../support/batch.ts';
import { eventually } from '../../support/eventually.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';
import { apiKeysEnv } from '../../support/keys.ts';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({
    env: { WORKER_IN_PROCESS: 'false', GATEWAY_API_KEYS: apiKeysEnv({ k: 'admin' }) },
    sandbox: { inProgressMs: 50 },
  });
});
afterAll(() => gw.close());

const s = () => gw.services();
const db = () => gw.db.prisma;
let amount = 10;
const oneRow = (account = 'token_success') => textSource(`provider,amount,account\nbank-card-token,${amount++}.00,${account}\n`);
const worker = () => testWorker(gw);
const until = (batchId: string, statuses: string[]) => async () =>
  statuses.includes((await db().batch.findUniqueOrThrow({ where: { id: batchId } })).status);

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof BatchStateError) return error.code;
    throw error;
  }
  throw new Error('expected a BatchStateError');
}

describe('approval', () => {
  it('needs someone other than the uploader', async () => {
    const batch = await s().importer.import({ source: oneRow(), uploadedBy: 'key:alice' });
    expect(await refusal(s().batches.approve(batch.id, { approver: 'key:alice' }))).toBe('batch.same-person');
    const approved = await s().batches.approve(batch.id, { approver: 'key:bob' });
    expect(approved).toMatchObject({ status: 'RUNNING', approvedBy: 'key:bob' });
    expect(approved.startedAt).not.toBeNull();
  });

  it('lets one person do both in single-user mode', async () => {
    const single = new BatchService(db(), s().batchEvents, { singleUser: true });
    const batch = await s().importer.import({ source: oneRow(), uploadedBy: 'anonymous' });
    expect((await single.approve(batch.id, { approver: 'anonymous' })).status).toBe('RUNNING');
  });

  it('happens once', async () => {
    const batch = await s().importer.import({ source: oneRow(), uploadedBy: 'key:a' });
    await s().batches.approve(batch.id, { approver: 'key:b' });
    expect(await refusal(s().batches.approve(batch.id, { approver: 'key:b' }))).toBe('batch.not-approvable');
  });

  it('of a batch with row errors needs validRowsOnly, and then pays only the valid rows', async () => {
    const batch = await s().importer.import({ source: fileSource(sampleFile('payroll-errors.csv')), uploadedBy: 'key:a' });
    expect(batch.status).toBe('REJECTED');
    expect(await refusal(s().batches.approve(batch.id, { approver: 'key:b' }))).toBe('batch.rejected');
    await s().batches.approve(batch.id, { approver: 'key:b', validRowsOnly: true });
    await worker().drain(until(batch.id, ['COMPLETED', 'COMPLETED_WITH_FAILURES']));
    const rows = await db().batchItem.groupBy({ by: ['status'], where: { batchId: batch.id }, _count: { _all: true } });
    expect(Object.fromEntries(rows.map((r) => [r.status, r._count._all]))).toEqual({ COMPLETED: 2, INVALID: 1 });
    expect((await db().batch.findUniqueOrThrow({ where: { id: batch.id } })).status).toBe('COMPLETED');
  });

  it('is refused for a file with file-level errors even with validRowsOnly', async () => {
    const batch = await s().importer.import({ source: textSource('provider,amount,iban\nx,1,y\n'), uploadedBy: 'key:a' });
    expect(await refusal(s().batches.approve(batch.id, { approver: 'key:b', validRowsOnly: true }))).toBe('batch.file-errors');
  });

  it('is neither taken nor offered for valid rows beside an error of the whole file', async () => {
    const rows =
      'provider,amount,account\nbank-card-token,7.71,token_success\nbank-card-token,7.72,token_success\nno-such-provider,7.73,x\n';
    const batch = await s().importer.import({ source: textSource(rows), uploadedBy: 'key:a' });
    expect(batch).toMatchObject({ status: 'REJECTED', validCount: 2 });
    expect(await s().batches.actions(batch)).toEqual(['approve-valid-rows', 'discard', 'dismiss']);
    // An import that stopped part-way (its process died, the database went away) keeps the
    // valid rows it read and an error of the whole file, as reject-stale-imports.ts records it.
    await db().batchProblem.create({
      data: { batchId: batch.id, line: null, code: 'import.failed', severity: 'error', message: 'the import stopped part-way' },
    });
    expect(await refusal(s().batches.approve(batch.id, { approver: 'key:b', validRowsOnly: true }))).toBe('batch.file-errors');
    // A review found the page offered APPROVE_VALID_ROWS (and DISCARD) here: only dismissing it is left.
    expect(await s().batches.actions(batch)).toEqual(['dismiss']);
  });
});

describe('cancel', () => {
  it('stops starting new payments: a row being created when the batch is cancelled is never executed, the rest never sent', async () => {
    const rows = Array.from({ length: 5 }, (_, i) => `bank-card-token,${200 + i}.00,token_success`).join('\n');
    const batch = await s().importer.import({ source: textSource(`provider,amount,account\n${rows}\n`), uploadedBy: 'key:a' });
    await s().batches.approve(batch.id, { approver: 'key:b' });
    // The worker's first create takes effect and its answer is held: the cancel lands mid-payment.
    await gw.sb.addFault({ operation: 'create', kind: 'hold-after' });
    const w = testWorker(gw, { concurrency: 1, perBatchConcurrency: 1 });
    w.start();
    await eventually(() => expect(gw.sb.sandbox.held()).toHaveLength(1), 60_000);
    const heldId = gw.sb.sandbox.held()[0]!.paymentId!;
    const cancelled = await s().batches.cancel(batch.id);
    expect(cancelled.status).toBe('CANCELLED');
    gw.sb.sandbox.releaseHeld();
    await eventually(
      async () => expect((await db().batch.findUniqueOrThrow({ where: { id: batch.id } })).finishedAt).not.toBeNull(),
      60_000,
    );
    await w.stop();
    const items = await db().batchItem.findMany({ where: { batchId: batch.id } });
    expect(items.every((i) => i.status === 'CANCELLED')).toBe(true);
    expect(await gw.sb.effects(heldId)).toMatchObject({ creates: 1, executeCalls: 0 });
    for (const item of items.filter((i) => i.paymentId !== heldId)) {
      expect((await gw.sb.raw('GET', `/_sandbox/payments/${item.paymentId}`)).status).toBe(404);
    }
    expect(await refusal(s().batches.cancel(batch.id))).toBe('batch.not-cancellable');
  });
});

describe('retryFailedItems', () => {
  it('pays FAILED rows again with new paymentIds, only when asked', async () => {
    const batch = await s().importer.import({ source: oneRow('token_execute_failed'), uploadedBy: 'key:a' });
    await s().batches.approve(batch.id, { approver: 'key:b' });
    await worker().drain(until(batch.id, ['COMPLETED', 'COMPLETED_WITH_FAILURES']));
    const [failed] = await db().batchItem.findMany({ where: { batchId: batch.id } });
    expect(failed).toMatchObject({ status: 'FAILED', attempt: 1, paymentId: `${batch.id}-2` });

    const retried = await s().batches.retryFailed(batch.id);
    expect(retried.status).toBe('RUNNING');
    const [again] = await db().batchItem.findMany({ where: { batchId: batch.id } });
    expect(again).toMatchObject({ status: 'PENDING', attempt: 2, paymentId: `${batch.id}-2-r2`, errorCode: null });
    await worker().drain(until(batch.id, ['COMPLETED', 'COMPLETED_WITH_FAILURES']));
    // The sandbox fails this recipient at execute every time; the first payment is untouched.
    expect(await gw.sb.effects(`${batch.id}-2`)).toMatchObject({ creates: 1, executions: 1 });
    expect(await gw.sb.effects(`${batch.id}-2-r2`)).toMatchObject({ creates: 1, executions: 1 });
  });

  it('is refused when nothing failed', async () => {
    const batch = await s().importer.import({ source: oneRow(), uploadedBy: 'key:a' });
    await s().batches.approve(batch.id, { approver: 'key:b' });
    await worker().drain(until(batch.id, ['COMPLETED']));
    expect(await refusal(s().batches.retryFailed(batch.id))).toBe('batch.not-retryable');
  });
});

describe('progress', () => {
  it('counts and sums rows per status, with throughput once finished', async () => {
    const batch = await s().importer.import({ source: fileSource(sampleFile('payroll-valid.csv')), force: true, uploadedBy: 'key:a' });
    const before = await s().batches.progress(batch);
    expect(before).toMatchObject({ counts: [{ status: 'PENDING', count: 10, amount: '50950.60' }], throughput: null });
    await s().batches.approve(batch.id, { approver: 'key:b' });
    await worker().drain(until(batch.id, ['COMPLETED_WITH_FAILURES']));
    const after = await s().batches.progress(await db().batch.findUniqueOrThrow({ where: { id: batch.id } }));
    expect(after.counts).toEqual([
      { status: 'COMPLETED', count: 7, amount: '46950.60' },
      { status: 'FAILED', count: 3, amount: '4000.00' },
    ]);
    expect(after.throughput).toBeGreaterThan(0);
    expect(after.secondsLeft).toBe(0);
  });

  it('estimates the time left at the recent pace, so that a long wait does not inflate it once the rows move again', async () => {
    const batch = await s().importer.import({ source: fileSource(sampleFile('payroll-valid.csv')), force: true, uploadedBy: 'key:a' });
    await s().batches.approve(batch.id, { approver: 'key:b' });
    // Started ten minutes ago and waited most of that (the partner down, or the balance
    // empty); 5 of its 10 rows finished in the last 20 seconds.
    const now = Date.now();
    await db().batch.update({ where: { id: batch.id }, data: { startedAt: new Date(now - 600_000) } });
    const items = await db().batchItem.findMany({ where: { batchId: batch.id }, orderBy: { line: 'asc' }, take: 5 });
    await db().batchItem.updateMany({
      where: { id: { in: items.map((i) => i.id) } },
      data: { status: 'COMPLETED', finishedAt: new Date(now - 20_000) },
    });
    const progress = await s().batches.progress(await db().batch.findUniqueOrThrow({ where: { id: batch.id } }));
    // Since the start: 5 rows in 600 s, 600 s for the 5 left. At the pace of the last minute: 60 s.
    expect(progress.secondsLeft).not.toBeNull();
    expect(progress.secondsLeft!).toBeLessThanOrEqual(90);
    expect(progress.secondsLeft!).toBeGreaterThan(30);
  });

  it('paces a cancelled batch by the rows it paid, not by those the cancel ended (issue 38: 23.3 rows/s against about 3)', async () => {
    const rows = Array.from({ length: 10 }, () => `bank-card-token,${amount++}.00,token_success`).join('\n');
    const batch = await s().importer.import({ source: textSource(`provider,amount,account\n${rows}\n`), uploadedBy: 'key:a' });
    await s().batches.approve(batch.id, { approver: 'key:b' });
    // Paid 2 rows in 100 s, then cancelled: the other 8 ended at the cancel, unsent.
    const now = Date.now();
    const items = await db().batchItem.findMany({ where: { batchId: batch.id }, orderBy: { line: 'asc' }, take: 2 });
    await db().batchItem.updateMany({
      where: { id: { in: items.map((i) => i.id) } },
      data: { status: 'COMPLETED', finishedAt: new Date(now - 1_000) },
    });
    await db().batch.update({ where: { id: batch.id }, data: { startedAt: new Date(now - 100_000) } });
    await s().batches.cancel(batch.id);
    const progress = await s().batches.progress(await db().batch.findUniqueOrThrow({ where: { id: batch.id } }));
    expect(progress.counts.find((c) => c.status === 'CANCELLED')?.count).toBe(8);
    expect(progress.throughput).not.toBeNull();
    expect(progress.throughput!).toBeLessThan(0.05);
  });
});
