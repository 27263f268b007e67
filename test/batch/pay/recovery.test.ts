import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BatchItemStatus } from '../../../src/db/generated/client.ts';
import type { PaymentPayload } from '../../../src/payout/models.ts';
import { testWorker, textSource } from '../../support/batch.ts';
import { testDatabaseKinds } from '../../support/database.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';

/**
 * A worker that died mid-item leaves the item leased in the state it last wrote. These
 * tests put items in each state, with the upstream as a crash at that point would leave
 * it, and check that the next worker finishes each one paying it exactly once.
 */
describe.each(testDatabaseKinds())('recovery after a crash on $name', (kind) => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ env: { WORKER_IN_PROCESS: 'false' }, sandbox: { inProgressMs: 50 }, database: kind });
  });
  afterAll(() => gw.close());

  const db = () => gw.db.prisma;
  const webhookUrl = () => `${gw.gateway.url}/webhooks/payout`;
  const worker = () => testWorker(gw, {}, webhookUrl());

  let rowAmount = 100;
  /** A running one-row batch whose item a dead worker left in `status`. */
  async function crashedItem(status: BatchItemStatus, leaseExpiresAt = new Date(Date.now() - 1_000)) {
    const amount = `${rowAmount++}.00`;
    const batch = await gw
      .services()
      .importer.import({ source: textSource(`provider,amount,account\nbank-card-token,${amount},token_success\n`) });
    await gw.services().batches.approve(batch.id, { approver: 'anonymous' });
    const item = (await db().batchItem.findFirstOrThrow({ where: { batchId: batch.id } }))!;
    await db().batchItem.update({ where: { id: item.id }, data: { status, leaseOwner: 'dead-worker', leaseExpiresAt } });
    const payload: PaymentPayload = {
      amount: { value: amount, currency: 'RUB' },
      recipientDetails: { providerCode: 'bank-card-token', fields: { account: 'token_success' } },
      webhookUrl: webhookUrl(),
    };
    return { batch, item, payload };
  }
  const done = (batchId: string) => async () => (await db().batch.findUniqueOrThrow({ where: { id: batchId } })).status !== 'RUNNING';
  const itemOf = (batchId: string) => db().batchItem.findFirstOrThrow({ where: { batchId } });

  it('CREATING, create never reached the upstream: creates and pays once', async () => {
    const { batch, item } = await crashedItem('CREATING');
    await worker().drain(done(batch.id));
    expect(await itemOf(batch.id)).toMatchObject({ status: 'COMPLETED', leaseOwner: null });
    expect(await gw.sb.effects(item.paymentId)).toMatchObject({ creates: 1, executions: 1 });
  });

  it('CREATING, create took effect but its answer was lost: reads it back, pays once', async () => {
    const { batch, item, payload } = await crashedItem('CREATING');
    expect((await gw.sb.create(item.paymentId, payload)).status).toBe(200);
    await worker().drain(done(batch.id));
    expect((await itemOf(batch.id)).status).toBe('COMPLETED');
    expect(await gw.sb.effects(item.paymentId)).toMatchObject({ createCalls: 2, creates: 1, executions: 1 });
  });

  it('READY: executes once', async () => {
    const { batch, item, payload } = await crashedItem('READY');
    expect((await gw.sb.create(item.paymentId, payload)).status).toBe(200);
    await worker().drain(done(batch.id));
    expect((await itemOf(batch.id)).status).toBe('COMPLETED');
    expect(await gw.sb.effects(item.paymentId)).toMatchObject({ creates: 1, executeCalls: 1, executions: 1 });
  });

  it('EXECUTING, execute took effect: reads it back and does not execute again', async () => {
    const { batch, item, payload } = await crashedItem('EXECUTING');
    expect((await gw.sb.create(item.paymentId, payload)).status).toBe(200);
    expect((await gw.sb.execute(item.paymentId)).status).toBe(200);
    await worker().drain(done(batch.id));
    expect((await itemOf(batch.id)).status).toBe('COMPLETED');
    expect(await gw.sb.effects(item.paymentId)).toMatchObject({ executeCalls: 1, executions: 1 });
  });

  it('EXECUTING, execute never reached the upstream: reads READY, then executes once', async () => {
    const { batch, item, payload } = await crashedItem('EXECUTING');
    expect((await gw.sb.create(item.paymentId, payload)).status).toBe(200);
    await worker().drain(done(batch.id));
    expect((await itemOf(batch.id)).status).toBe('COMPLETED');
    expect(await gw.sb.effects(item.paymentId)).toMatchObject({ executeCalls: 1, executions: 1 });
  });

  it('IN_PROGRESS: settles by reading back, without another execute', async () => {
    const { batch, item, payload } = await crashedItem('IN_PROGRESS');
    expect((await gw.sb.create(item.paymentId, payload)).status).toBe(200);
    expect((await gw.sb.execute(item.paymentId)).status).toBe(200);
    await worker().drain(done(batch.id));
    expect((await itemOf(batch.id)).status).toBe('COMPLETED');
    expect(await gw.sb.effects(item.paymentId)).toMatchObject({ executeCalls: 1 });
  });

  it('a batch cancelled while a row was being created does not execute that row', async () => {
    const { batch, item, payload } = await crashedItem('CREATING');
    expect((await gw.sb.create(item.paymentId, payload)).status).toBe(200);
    await gw.services().batches.cancel(batch.id);
    await worker().drain(async () => (await db().batch.findUniqueOrThrow({ where: { id: batch.id } })).finishedAt !== null);
    // The create had taken effect: read back, the row says the payment exists upstream, not executed.
    expect(await itemOf(batch.id)).toMatchObject({ status: 'CANCELLED', errorCode: 'batch.cancelled-after-create' });
    expect(await gw.sb.effects(item.paymentId)).toMatchObject({ createCalls: 1, creates: 1, executeCalls: 0 });
  });

  it('a batch cancelled while a row was being created, the create lost on the way: nothing is sent after the cancel', async () => {
    const { batch, item } = await crashedItem('CREATING');
    await gw.services().batches.cancel(batch.id);
    await worker().drain(async () => (await db().batch.findUniqueOrThrow({ where: { id: batch.id } })).finishedAt !== null);
    // Read back absent: never created, and not created now (decision 0027).
    expect(await itemOf(batch.id)).toMatchObject({ status: 'CANCELLED', errorCode: 'batch.cancelled' });
    expect((await gw.sb.raw('GET', `/_sandbox/payments/${encodeURIComponent(item.paymentId)}`)).status).toBe(404);
  });

  it('a row put back to wait as its batch was cancelled (a funds requeue racing the cancel) ends never sent, and the batch ends', async () => {
    const { batch, item } = await crashedItem('CREATING');
    await gw.services().batches.cancel(batch.id);
    await db().batchItem.update({ where: { id: item.id }, data: { status: 'PENDING', leaseOwner: null, leaseExpiresAt: null } });
    await worker().drain(async () => (await db().batch.findUniqueOrThrow({ where: { id: batch.id } })).finishedAt !== null);
    expect(await itemOf(batch.id)).toMatchObject({ status: 'CANCELLED', errorCode: 'batch.cancelled' });
    expect((await gw.sb.raw('GET', `/_sandbox/payments/${encodeURIComponent(item.paymentId)}`)).status).toBe(404);
  });

  it('a batch cancelled while a row was being executed: read back READY, it is not executed', async () => {
    const { batch, item, payload } = await crashedItem('EXECUTING');
    expect((await gw.sb.create(item.paymentId, payload)).status).toBe(200);
    await gw.services().batches.cancel(batch.id);
    await worker().drain(async () => (await db().batch.findUniqueOrThrow({ where: { id: batch.id } })).finishedAt !== null);
    expect(await itemOf(batch.id)).toMatchObject({ status: 'CANCELLED', errorCode: 'batch.cancelled-after-create' });
    expect(await gw.sb.effects(item.paymentId)).toMatchObject({ createCalls: 1, executeCalls: 0, executions: 0 });
  });

  it('leaves an item alone while its lease is still held', async () => {
    const { batch, item } = await crashedItem('CREATING', new Date(Date.now() + 60 * 60_000));
    let polls = 0;
    await worker().drain(async () => ++polls > 5);
    expect(await itemOf(batch.id)).toMatchObject({ status: 'CREATING', leaseOwner: 'dead-worker' });
    expect((await gw.sb.raw('GET', `/_sandbox/payments/${item.paymentId}`)).status).toBe(404);
  });

  it('two workers on one batch pay every row once', async () => {
    const rows = Array.from({ length: 12 }, (_, i) => `bank-card-token,${500 + i}.00,token_success`).join('\n');
    const batch = await gw.services().importer.import({ source: textSource(`provider,amount,account\n${rows}\n`) });
    await gw.services().batches.approve(batch.id, { approver: 'anonymous' });
    await Promise.all([worker().drain(done(batch.id)), worker().drain(done(batch.id))]);
    const items = await db().batchItem.findMany({ where: { batchId: batch.id } });
    expect(items.every((i) => i.status === 'COMPLETED')).toBe(true);
    for (const item of items) expect(await gw.sb.effects(item.paymentId)).toMatchObject({ createCalls: 1, executeCalls: 1 });
  });
});
