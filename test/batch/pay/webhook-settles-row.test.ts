import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BatchWorker } from '../../../src/batch/pay/batch-worker.ts';
import type { Webhook } from '../../../src/payout/models.ts';
import { signWebhook } from '../../../src/payout/signature.ts';
import { testWorker, textSource } from '../../support/batch.ts';
import { testDatabaseKinds } from '../../support/database.ts';
import { eventually } from '../../support/eventually.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';
import { WEBHOOK_SECRET } from '../../support/sandbox.ts';

/**
 * Issue 37 (a database in trouble): a batch sat at 1,490/1,500 for minutes while the
 * partner's COMPLETED webhooks for its last rows were logged as duplicates and not applied.
 * The worker's execute had taken effect and its payment was recorded COMPLETED, but the row's
 * write was lost with its lease, so the row stayed EXECUTING until a worker read it back
 * through a partner that was down. A webhook that proves a row's outcome settles it, unless
 * a worker still holds the row (its own write follows).
 */
describe.each(testDatabaseKinds())('a webhook settles the row whose outcome it proves, on $name', (kind) => {
  let gw: TestGateway;
  const running: BatchWorker[] = [];
  beforeAll(async () => {
    gw = await startTestGateway({ env: { WORKER_IN_PROCESS: 'false' }, database: kind });
  });
  afterEach(async () => {
    gw.sb.sandbox.releaseHeld();
    await Promise.all(running.splice(0).map((w) => w.stop()));
    await gw.sb.raw('DELETE', '/_sandbox/faults');
  });
  afterAll(() => gw.close());

  const db = () => gw.db.prisma;
  let amount = 700;
  async function runningBatch() {
    const batch = await gw
      .services()
      .importer.import({ source: textSource(`provider,amount,account\nbank-card-token,${amount++}.00,token_success\n`) });
    await gw.services().batches.approve(batch.id, { approver: 'anonymous' });
    return batch;
  }
  const row = (batchId: string) => db().batchItem.findFirstOrThrow({ where: { batchId } });
  const batchStatus = async (batchId: string) => (await db().batch.findUniqueOrThrow({ where: { id: batchId } })).status;
  const heldFor = (paymentId: string) => () => expect(gw.sb.sandbox.held().some((h) => h.paymentId === paymentId)).toBe(true);

  /** The partner's notification of what the payment now is, signed as the partner signs it. */
  async function notify(paymentId: string): Promise<string> {
    const payment = await db().payment.findUniqueOrThrow({ where: { paymentId } });
    const body: Webhook = {
      agentId: gw.services().client.agentId,
      paymentId,
      status: { value: 'COMPLETED', changedDateTime: new Date().toISOString() },
      amount: { value: payment.amount.toFixed(2), currency: payment.currency as Webhook['amount']['currency'] },
    };
    const response = await gw.http('/webhooks/payout', {
      method: 'POST',
      headers: { 'content-type': 'application/json', signature: signWebhook(WEBHOOK_SECRET, body) },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(200);
    return JSON.parse(response.text).outcome as string;
  }

  /** A worker executes the row's payment; the answer is held at the partner until released. */
  async function executeHeld() {
    const batch = await runningBatch();
    const { paymentId } = await row(batch.id);
    await gw.sb.addFault({ operation: 'execute', kind: 'hold-after' });
    const worker = testWorker(gw);
    running.push(worker);
    worker.start();
    await eventually(heldFor(paymentId), 60_000);
    return { batch, paymentId, worker };
  }

  it('a row EXECUTING whose worker lost it, its payment recorded COMPLETED: the repeated COMPLETED webhook settles it and ends the batch', async () => {
    const { batch, paymentId, worker } = await executeHeld();
    // The worker's lease lapses (it froze, or its database connection went) and its token no longer holds the row.
    await db().batchItem.updateMany({
      where: { paymentId },
      data: { leaseToken: randomUUID(), leaseOwner: 'lapsed', leaseExpiresAt: new Date(Date.now() - 60_000) },
    });
    gw.sb.sandbox.releaseHeld();
    // Its answer still records the payment (a fact is true either way); its row write is fenced off.
    await worker.stop();
    expect(await db().payment.findUniqueOrThrow({ where: { paymentId } })).toMatchObject({ status: 'COMPLETED' });
    expect(await row(batch.id)).toMatchObject({ status: 'EXECUTING' });

    expect(await notify(paymentId)).toBe('duplicate');
    expect(await row(batch.id)).toMatchObject({ status: 'COMPLETED', leaseToken: null, leaseOwner: null });
    expect(await batchStatus(batch.id)).toBe('COMPLETED');
    expect(await gw.sb.effects(paymentId)).toMatchObject({ createCalls: 1, executeCalls: 1, executions: 1 });
  });

  it('a row its worker still holds is left to it: the webhook records the payment, the worker writes the row', async () => {
    const { batch, paymentId } = await executeHeld();
    expect(await notify(paymentId)).toBe('applied');
    expect(await row(batch.id)).toMatchObject({ status: 'EXECUTING', leaseOwner: expect.any(String) });
    gw.sb.sandbox.releaseHeld();
    await eventually(async () => expect(await batchStatus(batch.id)).toBe('COMPLETED'), 60_000);
    expect(await row(batch.id)).toMatchObject({ status: 'COMPLETED' });
    expect(await gw.sb.effects(paymentId)).toMatchObject({ createCalls: 1, executeCalls: 1, executions: 1 });
  });
});
