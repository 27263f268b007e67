import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemActor } from '../../../src/audit/audit.ts';
import { textSource, testWorker } from '../../support/batch.ts';
import { eventually } from '../../support/eventually.ts';
import { queueFault } from '../../support/fault-sandbox.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';
import { testDatabaseKinds } from '../../support/database.ts';
import { today } from '../../support/reconciliation.ts';

/**
 * Issue 18, finding 2: a cancel that lands while rows are being created leaves payments
 * READY upstream for a day. The rows must say so, the gateway must refuse to execute them,
 * and the report and the reconciliation must show them until they expire.
 */
describe.each(testDatabaseKinds())('cancel after create on $name', (kind) => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ env: { WORKER_IN_PROCESS: 'false' }, database: kind });
  });
  afterAll(() => gw.close());

  const s = () => gw.services();
  const db = () => gw.db.prisma;
  const EXECUTE = `mutation($id: ID!) {
    executePayment(paymentId: $id) { __typename ... on PaymentRefusedError { code message paymentId } }
  }`;
  const ITEMS = `query($id: ID!) { batch(id: $id) { items { edges { node {
    paymentId status errorCode cancelledAfterCreate { expiresAt openUpstream }
  } } } } }`;
  const PAYMENT = `query($id: ID!) { payment(paymentId: $id) { paymentId status batchCancelled } }`;

  let line = 0;
  async function cancelledWhileCreating(rows: number): Promise<{ batchId: string; paymentIds: string[] }> {
    const body = Array.from({ length: rows }, () => `bank-card-token,${300 + ++line}.00,token_success`).join('\n');
    const batch = await s().importer.import({ source: textSource(`provider,amount,account\n${body}\n`), uploadedBy: 'key:a' });
    await s().batches.approve(batch.id, { approver: 'key:b' });
    // Every create takes effect upstream and its answer is held: the cancel lands while each row is CREATING.
    await queueFault(gw.sb, { operation: 'create', kind: 'hold-after', times: rows });
    const worker = testWorker(gw, { concurrency: rows, perBatchConcurrency: rows });
    worker.start();
    await eventually(() => expect(gw.sb.sandbox.held()).toHaveLength(rows), 60_000);
    expect(await db().batchItem.count({ where: { batchId: batch.id, status: 'CREATING' } })).toBe(rows);
    // The cancel is answered once no create or execute can leave (decision 0027): after the held answers come.
    const cancelled = s().batches.cancel(batch.id);
    await eventually(
      async () => expect((await db().batch.findUniqueOrThrow({ where: { id: batch.id } })).status).toBe('CANCELLED'),
      60_000,
    );
    gw.sb.sandbox.releaseHeld();
    await cancelled;
    await eventually(
      async () => expect((await db().batch.findUniqueOrThrow({ where: { id: batch.id } })).finishedAt).not.toBeNull(),
      60_000,
    );
    await worker.stop();
    const items = await db().batchItem.findMany({ where: { batchId: batch.id }, orderBy: { line: 'asc' } });
    return { batchId: batch.id, paymentIds: items.map((i) => i.paymentId) };
  }

  describe('a batch cancelled while its rows are being created', () => {
    let batchId: string;
    let paymentIds: string[];
    beforeAll(async () => {
      ({ batchId, paymentIds } = await cancelledWhileCreating(3));
    });

    it('records each row as created upstream, not executed, with the upstream expiry', async () => {
      const items = await db().batchItem.findMany({ where: { batchId } });
      for (const item of items) {
        const payment = await db().payment.findUniqueOrThrow({ where: { paymentId: item.paymentId } });
        expect(payment.status).toBe('READY');
        expect(payment.expiresAt).not.toBeNull();
        expect(item).toMatchObject({
          status: 'CANCELLED',
          errorCode: 'batch.cancelled-after-create',
          errorMessage: `created upstream, not executed, expires at ${payment.expiresAt!.toISOString()}`,
        });
        expect(await gw.sb.effects(item.paymentId)).toMatchObject({ status: 'READY', creates: 1, executeCalls: 0 });
      }
    });

    it('refuses executePayment on such a payment before any upstream call', async () => {
      const before = await gw.sb.effects(paymentIds[0]!);
      const reply = await gw.gql(EXECUTE, { id: paymentIds[0] });
      expect(reply.body.data.executePayment).toMatchObject({
        __typename: 'PaymentRefusedError',
        code: 'PAYMENT_CANCELLED',
        paymentId: paymentIds[0],
      });
      expect(reply.body.data.executePayment.message).toMatch(/cancelled/);
      expect(await gw.sb.effects(paymentIds[0]!)).toEqual(before);
      expect((await gw.sb.effects(paymentIds[0]!)).executeCalls).toBe(0);
      // The service refuses too, whoever calls it.
      await expect(s().payments.execute(paymentIds[1]!)).rejects.toMatchObject({ code: 'PAYMENT_CANCELLED' });
      expect((await gw.sb.effects(paymentIds[1]!)).executeCalls).toBe(0);
    });

    it('says so in GraphQL, on the row and on the payment', async () => {
      const reply = await gw.gql(ITEMS, { id: batchId });
      const nodes = reply.body.data.batch.items.edges.map((e: { node: unknown }) => e.node);
      expect(nodes).toHaveLength(3);
      for (const node of nodes) {
        expect(node).toMatchObject({
          status: 'CANCELLED',
          errorCode: 'batch.cancelled-after-create',
          cancelledAfterCreate: { openUpstream: true },
        });
        expect(Date.parse(node.cancelledAfterCreate.expiresAt)).toBeGreaterThan(Date.now());
      }
      const payment = await gw.gql(PAYMENT, { id: paymentIds[2] });
      expect(payment.body.data.payment).toMatchObject({ status: 'READY', batchCancelled: true });
    });

    it('says so in results.csv', async () => {
      const csv = await gw.http(`/batches/${batchId}/results.csv`);
      expect(csv.status).toBe(200);
      const lines = csv.text.trim().split('\r\n').slice(1);
      expect(lines).toHaveLength(3);
      for (const text of lines) {
        expect(text).toContain('CANCELLED,batch.cancelled-after-create,"created upstream, not executed, expires at ');
        expect(text).not.toContain('before this payment was executed');
      }
    });

    it('is reported by the reconciliation of the day while it is open upstream', async () => {
      const run = await s().reconciliations.run({ from: today(), to: today(), trigger: 'cli', actor: systemActor });
      const found = await db().reconciliationDiscrepancy.findMany({ where: { runId: run.id, paymentId: { in: paymentIds } } });
      expect(found.map((d) => d.paymentId).sort()).toEqual([...paymentIds].sort());
      for (const d of found) {
        expect(d).toMatchObject({ code: 'NOT_FINAL', gatewayValue: 'CANCELLED', upstreamValue: 'READY', resolution: 'OPEN', batchId });
      }
    });
  });

  describe('a cancelled row whose payment is executed upstream all the same', () => {
    it('is a discrepancy left open for a person, and the row stays CANCELLED', async () => {
      const { batchId, paymentIds } = await cancelledWhileCreating(1);
      const paymentId = paymentIds[0]!;
      // Someone with the partner's credentials executes it behind the gateway.
      expect((await gw.sb.execute(paymentId)).status).toBe(200);
      await eventually(async () => expect((await gw.sb.effects(paymentId)).status).toBe('COMPLETED'), 30_000);

      const run = await s().reconciliations.run({ from: today(), to: today(), trigger: 'cli', actor: systemActor });
      const found = await db().reconciliationDiscrepancy.findMany({ where: { runId: run.id, paymentId } });
      expect(found).toEqual([
        expect.objectContaining({
          code: 'STATUS_DIFFERS',
          gatewayValue: 'CANCELLED',
          upstreamValue: 'COMPLETED',
          resolution: 'OPEN',
          batchId,
        }),
      ]);
      const item = await db().batchItem.findFirstOrThrow({ where: { paymentId } });
      expect(item).toMatchObject({ status: 'CANCELLED', errorCode: 'batch.cancelled-after-create' });
      expect((await db().batch.findUniqueOrThrow({ where: { id: batchId } })).status).toBe('CANCELLED');
      // Seen again by the next day's run, whatever the gateway's record of the payment says by then.
      await gw.gql(PAYMENT, { id: paymentId });
      const again = await s().reconciliations.run({ from: today(), to: today(), trigger: 'cli', actor: systemActor });
      expect(await db().reconciliationDiscrepancy.findMany({ where: { runId: again.id, paymentId } })).toEqual([
        expect.objectContaining({ code: 'STATUS_DIFFERS', gatewayValue: 'CANCELLED', upstreamValue: 'COMPLETED', resolution: 'OPEN' }),
      ]);
    });
  });

  describe('a batch cancelled while a created row waits to be executed again', () => {
    it('records the READY row as created upstream, not executed, and refuses to execute it', async () => {
      const batch = await s().importer.import({
        source: textSource(`provider,amount,account\nbank-card-token,${300 + ++line}.00,token_success\n`),
        uploadedBy: 'key:a',
      });
      await s().batches.approve(batch.id, { approver: 'key:b' });
      // Every execute fails before it takes effect: the read-back finds the payment READY and the row waits READY for a retry far off.
      await queueFault(gw.sb, { operation: 'execute', kind: 'fail-before', times: 20 });
      const worker = testWorker(gw, { retryBaseMs: 600_000 });
      worker.start();
      await eventually(
        async () =>
          expect(await db().batchItem.findFirst({ where: { batchId: batch.id } })).toMatchObject({ status: 'READY', leaseToken: null }),
        60_000,
      );
      await worker.stop();
      await gw.sb.raw('DELETE', '/_sandbox/faults');
      await s().batches.cancel(batch.id);
      const item = await db().batchItem.findFirstOrThrow({ where: { batchId: batch.id } });
      const payment = await db().payment.findUniqueOrThrow({ where: { paymentId: item.paymentId } });
      expect(item).toMatchObject({
        status: 'CANCELLED',
        errorCode: 'batch.cancelled-after-create',
        errorMessage: `created upstream, not executed, expires at ${payment.expiresAt!.toISOString()}`,
      });
      const calls = (await gw.sb.effects(item.paymentId)).executeCalls;
      const reply = await gw.gql(EXECUTE, { id: item.paymentId });
      expect(reply.body.data.executePayment).toMatchObject({ __typename: 'PaymentRefusedError', code: 'PAYMENT_CANCELLED' });
      expect(await gw.sb.effects(item.paymentId)).toMatchObject({ status: 'READY', executions: 0, executeCalls: calls });
    });
  });
});
