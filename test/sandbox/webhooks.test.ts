import { afterEach, describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../../src/payout/signature.ts';
import { eventually } from '../support/eventually.ts';
import { sbpPayment, startSandbox, WEBHOOK_SECRET, type TestSandbox } from '../support/sandbox.ts';
import { startWebhookReceiver } from '../support/webhook-receiver.ts';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!();
});

async function setup(options: Parameters<typeof startSandbox>[0] = {}, receiver: Parameters<typeof startWebhookReceiver>[0] = {}) {
  const sb: TestSandbox = await startSandbox({ inProgressMs: 30, ...options });
  const hook = await startWebhookReceiver(receiver);
  cleanup.push(
    () => sb.close(),
    () => hook.close(),
  );
  return { sb, hook };
}

describe('status webhooks (spec: Events)', () => {
  it('posts each status change after creation, signed with HMAC-SHA256 hex', async () => {
    const { sb, hook } = await setup();
    await sb.create('w1', sbpPayment('sbp_bank_id_execute_in_progress', '100.00', { webhookUrl: hook.url }));
    expect(hook.received).toHaveLength(0); // creation itself is not a change to notify
    await sb.execute('w1');
    await eventually(() => expect(hook.received.map((w) => w.body.status.value)).toEqual(['IN_PROGRESS', 'COMPLETED']));
    for (const webhook of hook.received) {
      expect(webhook.contentType).toBe('application/json');
      expect(webhook.signature).toMatch(/^[0-9a-f]{64}$/);
      expect(verifyWebhookSignature(WEBHOOK_SECRET, webhook.body, webhook.signature)).toBe(true);
      expect(webhook.body).toMatchObject({ agentId: 'agent-1', paymentId: 'w1', amount: { value: '100.00', currency: 'RUB' } });
    }
    expect(hook.received[1]!.body.billingDetails).toMatchObject({ transactionId: expect.any(String) });
  });

  it('carries errorCode and errorMessage for FAILED', async () => {
    const { sb, hook } = await setup();
    await sb.create('w2', sbpPayment('sbp_bank_id_execute_failed', '100.00', { webhookUrl: hook.url }));
    await sb.execute('w2');
    await eventually(() => expect(hook.received).toHaveLength(1));
    expect(hook.received[0]!.body.status).toMatchObject({
      value: 'FAILED',
      errorCode: 'BILLING_DECLINED',
      errorMessage: expect.any(String),
    });
  });

  it('carries a status errorCode the spec does not list exactly as it is', async () => {
    const { sb, hook } = await setup();
    await sb.create('w2n', sbpPayment('sbp_bank_id_execute_failed_new_code', '100.00', { webhookUrl: hook.url }));
    await sb.execute('w2n');
    await eventually(() => expect(hook.received).toHaveLength(1));
    expect(hook.received[0]!.body.status).toMatchObject({ value: 'FAILED', errorCode: 'PROVIDER_NEW_CODE_2027' });
    expect(verifyWebhookSignature(WEBHOOK_SECRET, hook.received[0]!.body, hook.received[0]!.signature)).toBe(true);
  });

  it('notifies expiry', async () => {
    const { sb, hook } = await setup({ expiryMs: 30 });
    await sb.create('w3', sbpPayment('sbp_bank_id_success', '100.00', { webhookUrl: hook.url }));
    await eventually(() => expect(hook.received.map((w) => w.body.status.value)).toEqual(['EXPIRED']));
  });

  it('repeats until the receiver answers 2xx', async () => {
    const { sb, hook } = await setup({ webhookBackoffMs: 5 }, { failFirst: 3 });
    await sb.create('w4', sbpPayment('sbp_bank_id_success', '100.00', { webhookUrl: hook.url }));
    await sb.execute('w4');
    await eventually(() => expect(hook.received).toHaveLength(1));
    expect(hook.attempts()).toBe(4);
    const log = (await sb.raw('GET', '/_sandbox/webhooks')).body.attempts;
    expect(log.map((a: { httpStatus: number }) => a.httpStatus)).toEqual([500, 500, 500, 204]);
  });

  it('gives up after the configured number of attempts', async () => {
    const { sb, hook } = await setup({ webhookBackoffMs: 1, webhookAttempts: 3 }, { failFirst: 100 });
    await sb.create('w5', sbpPayment('sbp_bank_id_success', '100.00', { webhookUrl: hook.url }));
    await sb.execute('w5');
    await sb.sandbox.webhooks.idle();
    expect(hook.attempts()).toBe(3);
    expect(hook.received).toHaveLength(0);
  });

  it('sends nothing for a payment without webhookUrl', async () => {
    const { sb, hook } = await setup();
    await sb.create('w6', sbpPayment('sbp_bank_id_success'));
    await sb.execute('w6');
    // A later payment's notification arriving proves the sender has dealt with w6's change by now.
    await sb.create('w7', sbpPayment('sbp_bank_id_success', '100.00', { webhookUrl: hook.url }));
    await sb.execute('w7');
    await eventually(() => expect(hook.received.map((w) => w.body.paymentId)).toEqual(['w7']));
    await sb.sandbox.webhooks.idle();
    const attempts = (await sb.raw('GET', '/_sandbox/webhooks')).body.attempts;
    expect(attempts.map((a: { paymentId: string }) => a.paymentId)).toEqual(['w7']);
    expect(hook.attempts()).toBe(1);
  });
});
