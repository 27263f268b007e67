import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sbpPayment, startSandbox, type TestSandbox } from '../support/sandbox.ts';

const json = (body: unknown) => ({ body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
const today = () => new Date().toISOString().slice(0, 10);

/** The sandbox's test features for reconciliation, over HTTP; none of them is on a partner path. */
describe('sandbox test features', () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await startSandbox();
  });
  afterAll(() => sb.close());

  it("makes a payment behind the gateway's back, which the partner endpoints then answer, and charges the balance", async () => {
    const before = await sb.balanceLedger();
    const made = await sb.raw('POST', '/_sandbox/payments', json({ paymentId: 'behind-a', amount: '1500.00' }));
    expect(made.status).toBe(201);
    expect(made.body).toEqual({ created: 1, paymentIds: ['behind-a'] });
    const read = await sb.get('/payments/behind-a');
    expect(read.body).toMatchObject({
      paymentId: 'behind-a',
      status: { value: 'COMPLETED' },
      amount: { value: '1500.00', currency: 'RUB' },
      commission: { value: '10.50' },
    });
    const listed = await sb.get(`/payments?from=${today()}&to=${today()}&limit=100`);
    expect(listed.body.map((p: { paymentId: string }) => p.paymentId)).toContain('behind-a');
    const after = await sb.balanceLedger();
    expect(BigInt(after.balance.replace('.', ''))).toBe(BigInt(before.balance.replace('.', '')) - 151_050n);
  });

  it('makes many at once, back-dated, with the ids from a prefix, listed newest first in their day', async () => {
    const made = await sb.raw(
      'POST',
      '/_sandbox/payments',
      json({ idPrefix: 'old-', count: 3, amount: '10.00', creationDateTime: '2026-11-01T10:00:00+00:00', status: 'FAILED' }),
    );
    expect(made.body).toEqual({ created: 3, paymentIds: ['old-1', 'old-2', 'old-3'] });
    const day = await sb.get('/payments?from=2026-11-01&to=2026-11-01');
    expect(day.body.map((p: { paymentId: string }) => p.paymentId)).toEqual(['old-3', 'old-2', 'old-1']);
    expect(day.body[0]).toMatchObject({
      creationDateTime: '2026-11-01T10:00:00+00:00',
      status: { value: 'FAILED', errorCode: 'BILLING_DECLINED' },
    });
  });

  it('changes what the upstream holds without a webhook: status, commission, amount, recipient', async () => {
    await sb.create('alter-1', sbpPayment('sbp_bank_id_success', '200.00'));
    await sb.execute('alter-1');
    const changed = await sb.raw(
      'PATCH',
      '/_sandbox/payments/alter-1',
      json({ status: 'FAILED', errorCode: 'FRAUD_SUSPECTED', commission: '99.00' }),
    );
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ status: { value: 'FAILED', errorCode: 'FRAUD_SUSPECTED' }, commission: { value: '99.00' } });
    expect((await sb.get('/payments/alter-1')).body).toMatchObject({ status: { value: 'FAILED' }, commission: { value: '99.00' } });
    // FAILED holds no money: the charge came back.
    expect((await sb.effects('alter-1')).debited).toBe('0.00');
    await sb.raw(
      'PATCH',
      '/_sandbox/payments/alter-1',
      json({ amount: '250.00', fields: { account: '79009999999', bankId: 'sbp_bank_id_success' } }),
    );
    expect((await sb.get('/payments/alter-1')).body).toMatchObject({
      amount: { value: '250.00' },
      recipientDetails: { fields: { account: '79009999999' } },
    });
    expect(
      (await sb.raw('GET', '/_sandbox/webhooks')).body.attempts.filter((a: { paymentId: string }) => a.paymentId === 'alter-1'),
    ).toHaveLength(0);
  });

  it("refuses a bad change or seeding, naming the field, and an unknown payment with the spec's code", async () => {
    const badAmount = await sb.raw('PATCH', '/_sandbox/payments/alter-1', json({ commission: 12.5 }));
    expect(badAmount.status).toBe(400);
    expect(badAmount.body).toMatchObject({ errorCode: 'validation.error', cause: { commission: [expect.any(String)] } });
    const nothing = await sb.raw('PATCH', '/_sandbox/payments/alter-1', json({}));
    expect(nothing.status).toBe(400);
    const unknown = await sb.raw('PATCH', '/_sandbox/payments/nope', json({ status: 'FAILED' }));
    expect(unknown.status).toBe(404);
    expect(unknown.body.errorCode).toBe('payout.payment.not-found');
    const taken = await sb.raw('POST', '/_sandbox/payments', json({ paymentId: 'behind-a', amount: '1.00' }));
    expect(taken.body.errorCode).toBe('payout.resource.exists');
    const badStatus = await sb.raw('POST', '/_sandbox/payments', json({ amount: '1.00', status: 'EXPIRED' }));
    expect(badStatus.body.cause).toHaveProperty('status');
    expect((await sb.raw('POST', '/_sandbox/payments', json({ amount: '1.00' }))).status).toBe(201);
    expect((await sb.raw('POST', '/_sandbox/payments', { ...json({ amount: '1.00' }), token: 'wrong' })).status).toBe(401);
  });

  it('grows the list while it is read, and counts list calls', async () => {
    const calls = (await sb.raw('GET', '/_sandbox/list-calls')).body.calls as number;
    expect((await sb.raw('POST', '/_sandbox/list-growth', json({ reads: 2, paymentsPerRead: 5, idPrefix: 'grew-' }))).status).toBe(201);
    const first = await sb.get(`/payments?from=${today()}&to=${today()}&limit=5`);
    expect(first.body.map((p: { paymentId: string }) => p.paymentId)).toEqual(['grew-5', 'grew-4', 'grew-3', 'grew-2', 'grew-1']);
    expect((await sb.raw('GET', '/_sandbox/list-growth')).body).toEqual({ reads: 1, paymentsPerRead: 5, made: 5 });
    await sb.get(`/payments?from=${today()}&to=${today()}&limit=5`);
    const third = await sb.get(`/payments?from=${today()}&to=${today()}&limit=5`);
    expect(third.body[0].paymentId).toBe('grew-10');
    expect((await sb.raw('GET', '/_sandbox/list-growth')).body).toEqual({ reads: 0, paymentsPerRead: 0 });
    expect((await sb.raw('GET', '/_sandbox/list-calls')).body.calls).toBe(calls + 3);
  });
});

describe('sandbox test features at scale and across a restart', () => {
  let dir: string;
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('seeds 100,000 payments in one call and lists them page by page, each once, newest first, also after a restart', async () => {
    dir = await mkdtemp(join(tmpdir(), 'sandbox-scale-'));
    let sb = await startSandbox({ stateDir: dir, balance: '999999999999.00' });
    try {
      const made = await sb.raw('POST', '/_sandbox/payments', json({ idPrefix: 'bulk-', count: 100_000, amount: '100.00' }));
      expect(made.body).toEqual({ created: 100_000, idPrefix: 'bulk-' });
      await sb.raw('PATCH', '/_sandbox/payments/bulk-7', json({ status: 'FAILED' }));
    } finally {
      await sb.close();
    }
    sb = await startSandbox({ stateDir: dir });
    try {
      const seen: string[] = [];
      for (let offset = 0; ; offset += 100) {
        const page = await sb.get(`/payments?from=${today()}&to=${today()}&limit=100&offset=${offset}`);
        seen.push(...page.body.map((p: { paymentId: string }) => p.paymentId));
        if (page.body.length < 100) break;
      }
      expect(seen).toHaveLength(100_000);
      expect(new Set(seen).size).toBe(100_000);
      expect(seen[0]).toBe('bulk-100000');
      expect(seen.at(-1)).toBe('bulk-1');
      expect((await sb.get('/payments/bulk-7')).body.status.value).toBe('FAILED');
    } finally {
      await sb.close();
    }
  }, 300_000);
});
