import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signWebhook } from '../../src/payout/signature.ts';
import type { Webhook } from '../../src/payout/models.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { WEBHOOK_SECRET } from '../support/sandbox.ts';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw.close());

let sequence = 0;
/** A tracked READY payment whose upstream webhooks go nowhere, so only our deliveries count. */
async function trackedPayment(): Promise<string> {
  const paymentId = `wh-${++sequence}`;
  const reply = await gw.gql(
    `mutation($input: CreatePaymentInput!) { createPayment(input: $input) { __typename } }`,
    { input: { paymentId, amount: '100.00', webhookUrl: 'http://127.0.0.1:9/none', recipient: { sbpB2c: { account: '79001234567', bankId: 'sbp_bank_id_success' } } } },
  );
  expect(reply.body.data.createPayment.__typename).toBe('CreatePaymentSuccess');
  return paymentId;
}

const webhook = (paymentId: string, value: Webhook['status']['value'], extra: Partial<Webhook> = {}): Webhook => ({
  agentId: 'agent-1',
  paymentId,
  status: { value, changedDateTime: '2026-11-22T10:00:00+03:00' },
  amount: { value: '100.00', currency: 'RUB' },
  ...extra,
});

function deliver(body: Webhook | string, signature?: string | null) {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const sig = signature === undefined && typeof body !== 'string' ? signWebhook(WEBHOOK_SECRET, body) : signature;
  return gw.http('/webhooks/payout', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(sig == null ? {} : { signature: sig }) },
    body: text,
  });
}

const status = async (paymentId: string) => (await gw.services().tracker.find(paymentId))!;
const deliveries = (paymentId: string) => gw.db.prisma.webhookDelivery.findMany({ where: { paymentId }, orderBy: { id: 'asc' } });

describe('POST /webhooks/payout', () => {
  it('applies a signed status change, stores the delivery and answers 200', async () => {
    const id = await trackedPayment();
    const response = await deliver(webhook(id, 'COMPLETED', { billingDetails: { transactionId: 'tx-1' } }));
    expect(response.status).toBe(200);
    expect(JSON.parse(response.text)).toEqual({ outcome: 'applied' });
    const tracked = await status(id);
    expect(tracked.status).toBe('COMPLETED');
    expect(tracked.billingDetails).toEqual({ transactionId: 'tx-1' });
    expect(tracked.history.at(-1)).toMatchObject({ status: 'COMPLETED', source: 'webhook' });
    expect((await deliveries(id)).map((d) => d.outcome)).toEqual(['applied']);
  });

  it.each([
    ['a missing signature', null],
    ['a signature with another secret', signWebhook('wrong', webhook('x', 'COMPLETED'))],
    ['garbage', 'zzz'],
  ])('answers 401 to %s and changes nothing', async (_case, signature) => {
    const id = await trackedPayment();
    const response = await deliver(webhook(id, 'COMPLETED'), signature);
    expect(response.status).toBe(401);
    expect((await status(id)).status).toBe('READY');
    expect(await deliveries(id)).toEqual([]);
  });

  it('refuses a signature made over another status', async () => {
    const id = await trackedPayment();
    const response = await deliver(webhook(id, 'COMPLETED'), signWebhook(WEBHOOK_SECRET, webhook(id, 'FAILED')));
    expect(response.status).toBe(401);
  });

  it('accepts a Base64 signature', async () => {
    const id = await trackedPayment();
    const hex = signWebhook(WEBHOOK_SECRET, webhook(id, 'COMPLETED'));
    const response = await deliver(webhook(id, 'COMPLETED'), Buffer.from(hex, 'hex').toString('base64'));
    expect(response.status).toBe(200);
  });

  it('treats a repeated delivery as a no-op', async () => {
    const id = await trackedPayment();
    await deliver(webhook(id, 'IN_PROGRESS'));
    const again = await deliver(webhook(id, 'IN_PROGRESS'));
    expect(JSON.parse(again.text)).toEqual({ outcome: 'duplicate' });
    expect((await status(id)).history.filter((h) => h.status === 'IN_PROGRESS')).toHaveLength(1);
  });

  it('ends in the right state when deliveries arrive out of order; a final status never moves back', async () => {
    const id = await trackedPayment();
    await deliver(webhook(id, 'COMPLETED'));
    const late = await deliver(webhook(id, 'IN_PROGRESS'));
    expect(JSON.parse(late.text)).toEqual({ outcome: 'stale' });
    const failed = await deliver(webhook(id, 'FAILED', { status: { value: 'FAILED', changedDateTime: '2026-11-22T10:00:00+03:00', errorCode: 'BILLING_DECLINED' } }));
    expect(JSON.parse(failed.text)).toEqual({ outcome: 'stale' });
    expect((await status(id)).status).toBe('COMPLETED');
    expect((await deliveries(id)).map((d) => d.outcome)).toEqual(['applied', 'stale', 'stale']);
  });

  it('acknowledges a payment it does not track, without inventing one', async () => {
    const response = await deliver(webhook('not-ours', 'COMPLETED'));
    expect(JSON.parse(response.text)).toEqual({ outcome: 'unknown-payment' });
    expect(await gw.services().tracker.find('not-ours')).toBeNull();
  });

  it('does not apply a signed webhook whose amount differs from the payment', async () => {
    const id = await trackedPayment();
    const response = await deliver(webhook(id, 'COMPLETED', { amount: { value: '999.00', currency: 'RUB' } }));
    expect(JSON.parse(response.text)).toEqual({ outcome: 'amount-mismatch' });
    expect((await status(id)).status).toBe('READY');
  });

  it('answers 400 to a body that is not a Webhook, and 413 to a huge one', async () => {
    expect((await deliver('{"paymentId": 1}', 'x')).status).toBe(400);
    expect((await deliver('not json', 'x')).status).toBe(400);
    expect((await deliver(`{"pad":"${'x'.repeat(70_000)}"}`, 'x')).status).toBe(413);
  });

  it('answers 405 to anything but POST', async () => {
    expect((await gw.http('/webhooks/payout')).status).toBe(405);
  });
});
