import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signWebhook } from '../../src/payout/signature.ts';
import { statusErrorCodes, type Webhook } from '../../src/payout/models.ts';
import { MAX_WEBHOOK_BYTES } from '../../src/webhooks/webhook-intake.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { AGENT, sbpPayment, WEBHOOK_SECRET } from '../support/sandbox.ts';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw.close());

let sequence = 0;
/**
 * A payment the gateway tracks as READY, recorded the way the create path records it but
 * never sent upstream: no upstream webhook can arrive, so only the deliveries a test
 * makes count, and each test has a payment of its own.
 */
async function trackedPayment(): Promise<string> {
  const paymentId = `wh-${++sequence}`;
  const { tracker } = gw.services();
  expect(await tracker.recordIntent({ paymentId, agentId: AGENT, payload: sbpPayment('sbp_bank_id_success', '100.00') })).toBe(true);
  const applied = await tracker.applyUpstream(
    paymentId,
    { status: { value: 'READY', changedDateTime: '2026-11-22T09:59:00+03:00' } },
    'create',
  );
  expect(applied).toBe('applied');
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

const outcomeOf = (response: { text: string }) => JSON.parse(response.text).outcome as string;
const failedWith = (errorCode: string): Webhook['status'] => ({
  value: 'FAILED',
  changedDateTime: '2026-11-22T10:00:00+03:00',
  errorCode,
  errorMessage: 'declined by the recipient bank',
});

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
    const failed = await deliver(
      webhook(id, 'FAILED', { status: { value: 'FAILED', changedDateTime: '2026-11-22T10:00:00+03:00', errorCode: 'BILLING_DECLINED' } }),
    );
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

describe('webhook deliveries as the network and an attacker deliver them', () => {
  it('duplicated: the second copy is acknowledged, stored, and changes nothing', async () => {
    const id = await trackedPayment();
    const first = await deliver(webhook(id, 'IN_PROGRESS'));
    const second = await deliver(webhook(id, 'IN_PROGRESS'));
    expect([first.status, second.status]).toEqual([200, 200]);
    expect([outcomeOf(first), outcomeOf(second)]).toEqual(['applied', 'duplicate']);
    const tracked = await status(id);
    expect(tracked.status).toBe('IN_PROGRESS');
    expect(tracked.history.map((h) => h.status)).toEqual(['PENDING', 'READY', 'IN_PROGRESS']);
    expect((await deliveries(id)).map((d) => d.outcome)).toEqual(['applied', 'duplicate']);
  });

  it('reordered: COMPLETED before IN_PROGRESS ends COMPLETED, the late IN_PROGRESS is stale', async () => {
    const id = await trackedPayment();
    expect(outcomeOf(await deliver(webhook(id, 'COMPLETED', { billingDetails: { transactionId: 'tx-r' } })))).toBe('applied');
    const late = await deliver(webhook(id, 'IN_PROGRESS'));
    expect(late.status).toBe(200);
    expect(outcomeOf(late)).toBe('stale');
    const tracked = await status(id);
    expect(tracked.status).toBe('COMPLETED');
    expect(tracked.billingDetails).toEqual({ transactionId: 'tx-r' });
    expect(tracked.history.map((h) => h.status)).toEqual(['PENDING', 'READY', 'COMPLETED']);
  });

  it('replayed after final: the same signed bytes again, and another final status, move nothing', async () => {
    const id = await trackedPayment();
    const completed = webhook(id, 'COMPLETED', { billingDetails: { transactionId: 'tx-final' } });
    const signature = signWebhook(WEBHOOK_SECRET, completed);
    const bytes = JSON.stringify(completed);
    expect(outcomeOf(await deliver(bytes, signature))).toBe('applied');
    const replay = await deliver(bytes, signature);
    expect(replay.status).toBe(200);
    expect(outcomeOf(replay)).toBe('duplicate');
    expect(outcomeOf(await deliver(webhook(id, 'FAILED', { status: failedWith('BILLING_DECLINED') })))).toBe('stale');
    const tracked = await status(id);
    expect(tracked).toMatchObject({ status: 'COMPLETED', errorCode: null });
    expect(tracked.history.filter((h) => h.status === 'COMPLETED')).toHaveLength(1);
    expect((await deliveries(id)).map((d) => d.outcome)).toEqual(['applied', 'duplicate', 'stale']);
  });

  it('forged: signed with a key that is not the shared secret is refused with 401 and not stored', async () => {
    const id = await trackedPayment();
    const forged = webhook(id, 'COMPLETED');
    const response = await deliver(forged, signWebhook('guessed-secret', forged));
    expect(response.status).toBe(401);
    expect((await status(id)).status).toBe('READY');
    expect(await deliveries(id)).toEqual([]);
  });

  it.each([
    ['the amount', (w: Webhook): Webhook => ({ ...w, amount: { value: '100000.00', currency: 'RUB' } })],
    ['the status', (w: Webhook): Webhook => ({ ...w, status: failedWith('BILLING_DECLINED') })],
    ['the agent', (w: Webhook): Webhook => ({ ...w, agentId: 'agent-2' })],
  ])('tampered: %s changed after signing is refused with 401 and not stored', async (_field, tamper) => {
    const id = await trackedPayment();
    const genuine = webhook(id, 'COMPLETED');
    const response = await deliver(JSON.stringify(tamper(genuine)), signWebhook(WEBHOOK_SECRET, genuine));
    expect(response.status).toBe(401);
    expect((await status(id)).status).toBe('READY');
    expect(await deliveries(id)).toEqual([]);
  });

  it('tampered: a signed delivery moved onto another payment is refused with 401', async () => {
    const victim = await trackedPayment();
    const other = await trackedPayment();
    const genuine = webhook(other, 'FAILED', { status: failedWith('BILLING_DECLINED') });
    const response = await deliver(JSON.stringify({ ...genuine, paymentId: victim }), signWebhook(WEBHOOK_SECRET, genuine));
    expect(response.status).toBe(401);
    expect((await status(victim)).status).toBe('READY');
    expect(await deliveries(victim)).toEqual([]);
  });

  // The signature covers only agentId|paymentId|status|amount, so padding elsewhere keeps it valid.
  const oversized = (paymentId: string): Webhook =>
    webhook(paymentId, 'FAILED', { status: { ...failedWith('BILLING_DECLINED'), errorMessage: 'x'.repeat(MAX_WEBHOOK_BYTES) } });

  it('oversized: a correctly signed body over 64 KiB with its Content-Length is refused with 413 and not stored', async () => {
    const id = await trackedPayment();
    const response = await deliver(oversized(id));
    expect(response.status).toBe(413);
    expect((await status(id)).status).toBe('READY');
    expect(await deliveries(id)).toEqual([]);
  });

  it('oversized: a correctly signed body over 64 KiB sent in chunks without a length is refused with 413 and not stored', async () => {
    const id = await trackedPayment();
    const body = oversized(id);
    const bytes = Buffer.from(JSON.stringify(body));
    const chunks = Array.from({ length: Math.ceil(bytes.length / 8192) }, (_, i) => bytes.subarray(i * 8192, (i + 1) * 8192));
    const response = await gw.http('/webhooks/payout', {
      method: 'POST',
      headers: { 'content-type': 'application/json', signature: signWebhook(WEBHOOK_SECRET, body) },
      body: Readable.from(chunks),
    });
    expect(response.status).toBe(413);
    expect((await status(id)).status).toBe('READY');
    expect(await deliveries(id)).toEqual([]);
  });

  it('accepts a body just under the limit', async () => {
    const id = await trackedPayment();
    const small = webhook(id, 'FAILED', { status: failedWith('BILLING_DECLINED') });
    const padding = MAX_WEBHOOK_BYTES - Buffer.byteLength(JSON.stringify(small)) - 1;
    const response = await deliver(
      webhook(id, 'FAILED', {
        status: { ...failedWith('BILLING_DECLINED'), errorMessage: 'y'.repeat(padding + 'declined by the recipient bank'.length) },
      }),
    );
    expect(response.status).toBe(200);
    expect((await status(id)).status).toBe('FAILED');
  });

  it('unknown errorCode: a signed FAILED with a code the spec does not list is applied (200), the code kept as sent', async () => {
    expect(statusErrorCodes).not.toContain('PROVIDER_NEW_CODE_2027');
    const id = await trackedPayment();
    const response = await deliver(webhook(id, 'FAILED', { status: failedWith('PROVIDER_NEW_CODE_2027') }));
    expect(response.status).toBe(200);
    expect(outcomeOf(response)).toBe('applied');
    const tracked = await status(id);
    expect(tracked).toMatchObject({
      status: 'FAILED',
      errorCode: 'PROVIDER_NEW_CODE_2027',
      errorMessage: 'declined by the recipient bank',
    });
    expect(tracked.history.at(-1)).toMatchObject({ status: 'FAILED', errorCode: 'PROVIDER_NEW_CODE_2027', source: 'webhook' });
    const [stored] = await deliveries(id);
    expect(stored).toMatchObject({ outcome: 'applied', status: 'FAILED' });
    expect((stored!.body as { status: { errorCode: string } }).status.errorCode).toBe('PROVIDER_NEW_CODE_2027');
  });
});
