import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Webhook } from '../../src/payout/models.ts';
import { signWebhook } from '../../src/payout/signature.ts';
import { testDatabaseKinds } from '../support/database.ts';
import { eventually } from '../support/eventually.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { AGENT, sbpPayment, WEBHOOK_SECRET } from '../support/sandbox.ts';

/**
 * Issue 37: after a database restart the partner's repeated notifications were answered 503
 * "Unable to start a transaction in the given time" (Prisma's P2028: no connection of the
 * pool's 10 free within 2 s) faster than they drained. Each repeat of a status the gateway
 * had already recorded took an interactive transaction, with a row lock, for nothing: a final
 * status never changes. Here every payment's row is locked by another session (a database
 * slow to give its rows back after a restart) while the partner repeats its notifications,
 * far more of them than the pool has connections; the lock is held until each has been
 * answered. Before, each waited for a transaction that Prisma gave up on (503); now a repeat
 * of a final status is answered from a read.
 */
const postgres = testDatabaseKinds().find((kind) => kind.name === 'postgresql');

describe.runIf(postgres !== undefined)('a burst of repeated notifications while the database holds every payment (PostgreSQL)', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ database: postgres });
  });
  afterAll(() => gw?.close());

  /** Payments the gateway recorded COMPLETED, as after the first delivery of their notification. */
  async function completedPayments(count: number): Promise<Webhook[]> {
    const { tracker } = gw.services();
    const webhooks: Webhook[] = [];
    for (let i = 0; i < count; i++) {
      const paymentId = `burst-${i}`;
      const amount = `${100 + i}.00`;
      await tracker.recordIntent({ paymentId, agentId: AGENT, payload: sbpPayment('sbp_bank_id_success', amount) });
      const webhook: Webhook = {
        agentId: AGENT,
        paymentId,
        status: { value: 'COMPLETED', changedDateTime: '2026-11-28T10:00:00Z' },
        amount: { value: amount, currency: 'RUB' },
      };
      expect(await tracker.applyUpstream(paymentId, { status: webhook.status }, 'webhook')).toBe('applied');
      webhooks.push(webhook);
    }
    return webhooks;
  }

  it('repeats of final statuses are each accepted while every payment row is locked', async () => {
    const webhooks = await completedPayments(40);
    const holder = new pg.Client({ connectionString: (gw.target as { databaseUrl: string }).databaseUrl });
    await holder.connect();
    let statuses: number[] = [];
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT 1 FROM "Payment" WHERE "paymentId" LIKE 'burst-%' FOR UPDATE`);
      // Ten copies of each: four times the pool's connections, all at once.
      const answered: number[] = [];
      const all = Promise.all(
        webhooks
          .flatMap((webhook) => Array.from({ length: 10 }, () => webhook))
          .map(async (webhook) => {
            const response = await gw.http('/webhooks/payout', {
              method: 'POST',
              headers: { 'content-type': 'application/json', signature: signWebhook(WEBHOOK_SECRET, webhook) },
              body: JSON.stringify(webhook),
            });
            answered.push(response.status);
            return response.status;
          }),
      );
      // The lock holds until every copy was answered, or one was refused (then the rest go through).
      await eventually(
        () => expect(answered.length === webhooks.length * 10 || answered.some((status) => status !== 200)).toBe(true),
        120_000,
      );
      await holder.query('ROLLBACK');
      statuses = await all;
    } finally {
      await holder.query('ROLLBACK').catch(() => {});
      await holder.end();
    }
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    const recorded = await gw.db.prisma.webhookDelivery.groupBy({
      by: ['outcome'],
      where: { paymentId: { startsWith: 'burst-' } },
      _count: true,
    });
    expect(recorded).toEqual([{ outcome: 'duplicate', _count: 400 }]);
  });
});
