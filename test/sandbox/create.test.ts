import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentPayload } from '../../src/payout/models.ts';
import { signPayment } from '../../src/payout/signature.ts';
import { testPrivateKey } from '../support/keys.ts';
import { sbpPayment, startSandbox, type TestSandbox } from '../support/sandbox.ts';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());

let sequence = 0;
const newId = () => `create-${++sequence}`;

const card = (fields: Record<string, string>, amount = '100.00', providerCode = 'bank-card-russia-fio'): PaymentPayload => ({
  amount: { value: amount, currency: 'RUB' },
  recipientDetails: { providerCode: providerCode as PaymentPayload['recipientDetails']['providerCode'], fields },
});
const fio = { pan: '2200000000000004', lastName: 'Ivanov', firstName: 'Ivan' };

describe('payment creation succeeds (state table: no payment -> READY)', () => {
  it('returns the Payment as READY with commission, times and the request echoed', async () => {
    const id = newId();
    const payload = sbpPayment('sbp_bank_id_success', '1000.00', {
      webhookUrl: 'http://127.0.0.1:9/hook',
      customFields: { employee: 'E-1' },
    });
    const { status, body } = await sb.create(id, payload);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      paymentId: id,
      status: { value: 'READY' },
      amount: { value: '1000.00', currency: 'RUB' },
      recipientDetails: payload.recipientDetails,
      commission: { currency: 'RUB', value: '10.00' }, // max(0.70% = 7.00, minimum 10.00)
      webhookUrl: 'http://127.0.0.1:9/hook',
      customFields: { employee: 'E-1' },
    });
    expect(Date.parse(body.expirationDateTime)).toBeGreaterThan(Date.parse(body.creationDateTime));
    expect(body).not.toHaveProperty('billingDetails');
  });

  it('accepts a 36-character paymentId and a Content-Type with charset', async () => {
    const id = 'x'.repeat(36);
    const { status } = await sb.create(id, card(fio), { headers: { 'content-type': 'application/json; charset=utf-8' } });
    expect(status).toBe(200);
  });

  it('accepts amounts exactly at the provider limits (inclusive)', async () => {
    expect((await sb.create(newId(), card(fio, '1.00'))).status).toBe(200);
    expect((await sb.create(newId(), card(fio, '600000.00'))).status).toBe(200);
  });

  it('computes card commission as 1.5% with a 25.00 minimum', async () => {
    expect((await sb.create(newId(), card(fio, '10000.00'))).body.commission.value).toBe('150.00');
    expect((await sb.create(newId(), card(fio, '100.00'))).body.commission.value).toBe('25.00');
  });
});

describe('payment creation is refused', () => {
  it('without Content-Type: application/json (400 validation.error)', async () => {
    const { status, body } = await sb.create(newId(), card(fio), { headers: { 'content-type': 'text/plain' } });
    expect(status).toBe(400);
    expect(body.errorCode).toBe('validation.error');
    expect(body.cause).toHaveProperty('Content-Type');
  });

  it('with invalid JSON (400 validation.error)', async () => {
    const { status, body } = await sb.raw('PUT', sb.agentPath(`/payments/${newId()}`), {
      body: '{"amount":',
      headers: { 'content-type': 'application/json', signature: 'x' },
    });
    expect(status).toBe(400);
    expect(body.errorCode).toBe('validation.error');
  });

  it('with a body that is not a PaymentPayload, naming the bad paths', async () => {
    const { status, body } = await sb.raw('PUT', sb.agentPath(`/payments/${newId()}`), {
      body: JSON.stringify({ amount: { value: 100 }, recipientDetails: { providerCode: 'sbp-b2c' } }),
      headers: { 'content-type': 'application/json', signature: 'x' },
    });
    expect(status).toBe(400);
    expect(body.errorCode).toBe('validation.error');
    expect(Object.keys(body.cause)).toEqual(expect.arrayContaining(['amount.value', 'amount.currency', 'recipientDetails.fields']));
  });

  it('without a Signature (401 auth.failed)', async () => {
    const { status, body } = await sb.create(newId(), card(fio), { signature: '' });
    expect(status).toBe(401);
    expect(body.errorCode).toBe('auth.failed');
  });

  it('with a Signature made over other values (401 auth.failed), and creates nothing', async () => {
    const id = newId();
    const forged = signPayment(testPrivateKey, 'agent-1', id, card(fio, '1.00'));
    const { status, body } = await sb.create(id, card(fio, '500.00'), { signature: forged });
    expect(status).toBe(401);
    expect(body.errorCode).toBe('auth.failed');
    expect((await sb.get(`/payments/${id}`)).status).toBe(404);
  });

  it('with a paymentId longer than 36 characters (400)', async () => {
    const { status, body } = await sb.create('y'.repeat(37), card(fio));
    expect(status).toBe(400);
    expect(body.cause).toHaveProperty('paymentId');
  });

  it.each(['100', '100.5', '100.000', '-5.00', '1e2', '1,00'])('with amount %j (400 validation.error, cause.amount)', async (value) => {
    const { status, body } = await sb.create(newId(), card(fio, value));
    expect(status).toBe(400);
    expect(body.errorCode).toBe('validation.error');
    expect(body.cause).toHaveProperty('amount');
  });

  it('with a currency other than RUB (400 payout.bad.request)', async () => {
    const payload = card(fio);
    const { status, body } = await sb.create(newId(), { ...payload, amount: { value: '10.00', currency: 'USD' as 'RUB' } });
    expect(status).toBe(400);
    expect(body.errorCode).toBe('payout.bad.request');
    expect(body.cause).toHaveProperty(['amount.currency']);
  });

  it.each(['0.99', '600000.01'])('with amount %s outside the provider limits (cause.amount)', async (value) => {
    const { status, body } = await sb.create(newId(), card(fio, value));
    expect(status).toBe(400);
    expect(body.errorCode).toBe('payout.bad.request');
    expect(body.cause.amount[0]).toMatch(/between 1.00 and 600000.00/);
  });

  it('with an unknown provider (404 payout.provider.not-found)', async () => {
    const { status, body } = await sb.create(newId(), card(fio, '10.00', 'paypal'));
    expect(status).toBe(404);
    expect(body.errorCode).toBe('payout.provider.not-found');
  });

  it('naming each missing required field, bad pattern and unknown field', async () => {
    const { status, body } = await sb.create(newId(), card({ pan: '1234', lastName: 'Ivanov', nickname: 'x' }));
    expect(status).toBe(400);
    expect(body.errorCode).toBe('payout.bad.request');
    expect(body.cause.firstName).toEqual(['is required']);
    expect(body.cause.pan[0]).toMatch(/does not match/);
    expect(body.cause.nickname[0]).toMatch(/not a parameter/);
    expect(body.cause).not.toHaveProperty('lastName');
  });

  it('with an existing paymentId (409 payout.resource.exists), even with the same body', async () => {
    const id = newId();
    expect((await sb.create(id, card(fio))).status).toBe(200);
    const again = await sb.create(id, card(fio));
    expect(again.status).toBe(409);
    expect(again.body.errorCode).toBe('payout.resource.exists');
    expect((await sb.effects(id)).creates).toBe(1);
  });
});
