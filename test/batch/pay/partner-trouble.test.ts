import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { paymentIdFor } from '../../../src/batch/ids.ts';
import type { BatchWorker, WorkerOptions } from '../../../src/batch/pay/batch-worker.ts';
import { PaymentAttempts } from '../../../src/payments/attempt.ts';
import type { PayoutClient } from '../../../src/payout/client.ts';
import { testWorker, textSource } from '../../support/batch.ts';
import { testDatabaseKinds } from '../../support/database.ts';
import { eventually } from '../../support/eventually.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';

/**
 * Issue 19, "use every proof the partner gives": trouble of the partner never strands a row.
 * Each test counts the calls the worker made (an observer on its own client) and waits for
 * conditions, never for time.
 */
describe.each(testDatabaseKinds())('a partner in trouble on $name', (kind) => {
  let gw: TestGateway;
  let deadUrl: string;
  const running: BatchWorker[] = [];
  beforeAll(async () => {
    gw = await startTestGateway({ env: { WORKER_IN_PROCESS: 'false' }, sandbox: { inProgressMs: 50 }, database: kind });
    // A port nobody listens on: every connection is refused before a byte is sent.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    deadUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((w) => w.stop()));
    await gw.sb.raw('DELETE', '/_sandbox/faults');
  });
  afterAll(() => gw.close());

  const db = () => gw.db.prisma;
  const services = () => gw.services();
  let amount = 700;
  async function runningBatch(account = 'token_success') {
    const batch = await services().importer.import({
      source: textSource(`provider,amount,account\nbank-card-token,${amount++}.00,${account}\n`),
    });
    await services().batches.approve(batch.id, { approver: 'anonymous' });
    return batch;
  }
  const item = (batchId: string) => db().batchItem.findFirstOrThrow({ where: { batchId } });
  const ended = (batchId: string) => async () => (await db().batch.findUniqueOrThrow({ where: { id: batchId } })).status !== 'RUNNING';

  /** A worker with its own client, whose calls are counted by path kind. */
  function countingWorker(options: Partial<WorkerOptions>, client: PayoutClient = gw.sb.client()) {
    const calls = { all: 0, reads: 0, executes: 0 };
    client.observe({
      onCall: (call) => {
        calls.all++;
        if (call.method === 'GET') calls.reads++;
        if (call.path.endsWith('/execute')) calls.executes++;
      },
    });
    const attempts = new PaymentAttempts(client, { backoff: { baseMs: 5, maxMs: 20 } });
    const worker = testWorker(gw, { retryBaseMs: 5, ...options }, undefined, { client, attempts });
    running.push(worker);
    return { worker, calls };
  }

  it('connections refused spend no retry and leave no doubt: the row waits, then is paid once', async () => {
    const batch = await runningBatch();
    const unreachable = countingWorker({ maxRetries: 1 }, gw.sb.client({ baseUrl: deadUrl }));
    unreachable.worker.start();
    // Many passes over the row, far past its one retry.
    await eventually(() => expect(unreachable.calls.all).toBeGreaterThanOrEqual(8), 60_000);
    await unreachable.worker.stop();
    const waiting = await item(batch.id);
    expect(waiting).toMatchObject({ status: 'PENDING', retries: 0, errorCode: 'network.error' });
    // The sandbox saw no call for the payment at all.
    expect((await gw.sb.raw('GET', `/_sandbox/payments/${waiting.paymentId}`)).status).toBe(404);

    await countingWorker({ maxRetries: 1 }).worker.drain(ended(batch.id));
    expect(await item(batch.id)).toMatchObject({ status: 'COMPLETED', retries: 0, errorCode: null });
    expect(await gw.sb.effects(waiting.paymentId)).toMatchObject({ creates: 1, executions: 1 });
  });

  it('an outcome reading back cannot settle is read again until it settles, never NEEDS_REVIEW', async () => {
    const batch = await runningBatch();
    await gw.sb.addFault({ operation: 'execute', kind: 'fail-after' });
    // Every read fails until the faults are cleared: far longer than the row's retries last.
    await gw.sb.addFault({ operation: 'get', kind: 'fail-before', times: 100_000 });
    const { worker, calls } = countingWorker({ maxRetries: 2 });
    worker.start();
    await eventually(() => expect(calls.reads).toBeGreaterThanOrEqual(40), 60_000);
    expect(await item(batch.id)).toMatchObject({ status: 'EXECUTING', retries: 3 });
    await gw.sb.raw('DELETE', '/_sandbox/faults');
    await eventually(async () => expect((await item(batch.id)).status).toBe('COMPLETED'), 60_000);
    expect(await gw.sb.effects((await item(batch.id)).paymentId)).toMatchObject({ executeCalls: 1, executions: 1 });
  });

  it('an execute that never takes effect is sent a bounded number of times across READY ⇄ EXECUTING, then only read until the payment leaves READY', async () => {
    const batch = await runningBatch();
    await gw.sb.addFault({ operation: 'execute', kind: 'fail-before', times: 1_000 });
    const { worker, calls } = countingWorker({ maxRetries: 2 });
    worker.start();
    // READY is no proof: an execute held up on the way could still land, so the row is never
    // FAILED on it (docs/model-trails/ready-taken-for-proof-that-nothing-will-be-paid.md).
    await eventually(async () => {
      const row = await item(batch.id);
      expect(row.status).toBe('EXECUTING');
      expect(row.retries).toBeGreaterThanOrEqual(4);
    }, 60_000);
    const reads = calls.reads;
    await eventually(() => expect(calls.reads).toBeGreaterThan(reads + 3), 60_000);
    const row = await item(batch.id);
    expect(row.status).toBe('EXECUTING');
    // 3 sends per attempt (PaymentAttempts' default), 3 attempts: the first and 2 retries.
    const { executeCalls, executions } = await gw.sb.effects(row.paymentId);
    expect(executions).toBe(0);
    expect(executeCalls).toBeLessThanOrEqual(9);
    // The partner expires it: now there is proof, and the row ends EXPIRED with nothing sent.
    expect(
      (
        await gw.sb.raw('PATCH', `/_sandbox/payments/${row.paymentId}`, {
          body: JSON.stringify({ status: 'EXPIRED' }),
          headers: { 'content-type': 'application/json' },
        })
      ).status,
    ).toBe(200);
    await eventually(async () => expect((await item(batch.id)).status).toBe('EXPIRED'), 60_000);
    expect((await gw.sb.effects(row.paymentId)).executeCalls).toBe(executeCalls);
  });

  it('retryFailedItems pays nothing new while the earlier payment reads READY, and pays once it has expired', async () => {
    const batch = await runningBatch();
    // The earlier payment created and READY upstream, its executes lost on the way:
    await gw.sb.addFault({ operation: 'execute', kind: 'fail-before', times: 1_000 });
    const first = countingWorker({ maxRetries: 0 });
    first.worker.start();
    // Sends spent (maxRetries 0): from here on the row is only read, its retries counting reads.
    await eventually(async () => {
      const row = await item(batch.id);
      expect(row.status).toBe('EXECUTING');
      expect(row.retries).toBeGreaterThanOrEqual(1);
    }, 60_000);
    await first.worker.stop();
    await gw.sb.raw('DELETE', '/_sandbox/faults');
    // ... and the row FAILED all the same, as the code before the model's finding left it.
    const earlier = await item(batch.id);
    await db().batchItem.updateMany({
      where: { batchId: batch.id },
      data: { status: 'FAILED', errorCode: 'payout.payment.still-ready', finishedAt: new Date() },
    });
    await db().batch.update({ where: { id: batch.id }, data: { status: 'COMPLETED_WITH_FAILURES', finishedAt: new Date() } });
    expect((await gw.sb.effects(earlier.paymentId)).status).toBe('READY');

    await services().batches.retryFailed(batch.id);
    const retry = countingWorker({ maxRetries: 0 });
    retry.worker.start();
    await eventually(() => expect(retry.calls.reads).toBeGreaterThanOrEqual(3), 60_000);
    expect(await item(batch.id)).toMatchObject({ status: 'PENDING', attempt: 2, errorCode: 'payout.payment.still-ready' });
    const nextId = paymentIdFor(batch.id, earlier.line, 2);
    expect((await gw.sb.allEffects()).map((p) => p.paymentId)).not.toContain(nextId);

    expect(
      (
        await gw.sb.raw('PATCH', `/_sandbox/payments/${earlier.paymentId}`, {
          body: JSON.stringify({ status: 'EXPIRED' }),
          headers: { 'content-type': 'application/json' },
        })
      ).status,
    ).toBe(200);
    await eventually(
      async () => expect(await item(batch.id)).toMatchObject({ status: 'COMPLETED', attempt: 2, paymentId: nextId }),
      60_000,
    );
    expect(await gw.sb.effects(earlier.paymentId)).toMatchObject({ executions: 0, status: 'EXPIRED' });
    expect(await gw.sb.effects(nextId)).toMatchObject({ creates: 1, executions: 1 });
  });

  it('retryFailedItems pays again a row whose earlier payment the upstream never created', async () => {
    const batch = await runningBatch();
    await gw.sb.addFault({ operation: 'create', kind: 'fail-before', times: 1_000 });
    await countingWorker({ maxRetries: 0 }).worker.drain(ended(batch.id));
    const failed = await item(batch.id);
    expect(failed).toMatchObject({ status: 'FAILED', attempt: 1 });
    expect(await gw.sb.effects(failed.paymentId)).toMatchObject({ creates: 0 });
    await gw.sb.raw('DELETE', '/_sandbox/faults');

    await services().batches.retryFailed(batch.id);
    await countingWorker({ maxRetries: 0 }).worker.drain(ended(batch.id));
    expect(await item(batch.id)).toMatchObject({ status: 'COMPLETED', attempt: 2 });
    expect(await gw.sb.effects(paymentIdFor(batch.id, failed.line, 2))).toMatchObject({ creates: 1, executions: 1 });
  });
});
