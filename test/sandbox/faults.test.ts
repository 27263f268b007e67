import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sbpPayment, startSandbox, type TestSandbox } from '../support/sandbox.ts';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());

describe('fault injection', () => {
  it('fail-before answers 500 and the create never happened', async () => {
    await sb.addFault({ operation: 'create', kind: 'fail-before' });
    const response = await sb.create('f1', sbpPayment('sbp_bank_id_success'));
    expect(response.status).toBe(500);
    expect(response.body.errorCode).toBe('payout.internal.error');
    expect((await sb.get('/payments/f1')).status).toBe(404);
    expect(await sb.effects('f1')).toMatchObject({ createCalls: 1, creates: 0 });
  });

  it('fail-after answers 500 although the create took effect (the ambiguous case)', async () => {
    await sb.addFault({ operation: 'create', kind: 'fail-after' });
    expect((await sb.create('f2', sbpPayment('sbp_bank_id_success'))).status).toBe(500);
    expect((await sb.get('/payments/f2')).body.status.value).toBe('READY');
  });

  it('drop-before cuts the connection and the execute never happened', async () => {
    await sb.create('f3', sbpPayment('sbp_bank_id_success'));
    await sb.addFault({ operation: 'execute', kind: 'drop-before' });
    await expect(sb.execute('f3')).rejects.toThrow();
    expect(await sb.effects('f3')).toMatchObject({ executeCalls: 1, executions: 0, status: 'READY' });
  });

  it('drop-after cuts the connection after the execute took effect', async () => {
    await sb.create('f4', sbpPayment('sbp_bank_id_success'));
    await sb.addFault({ operation: 'execute', kind: 'drop-after' });
    await expect(sb.execute('f4')).rejects.toThrow();
    expect(await sb.effects('f4')).toMatchObject({ executeCalls: 1, executions: 1, status: 'COMPLETED' });
  });

  it('rate-limit answers 429 with Retry-After and changes nothing', async () => {
    await sb.addFault({ operation: 'balance', kind: 'rate-limit' });
    const response = await sb.get('/balance');
    expect(response.status).toBe(429);
    expect(response.headers['retry-after']).toBe('1');
    expect((await sb.get('/balance')).status).toBe(200);
  });

  it('uses a rule for the given number of matching calls only', async () => {
    await sb.addFault({ operation: 'providers', kind: 'fail-before', times: 2 });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await sb.get('/providers')).status);
    expect(statuses).toEqual([500, 500, 200]);
  });

  it('lists and clears pending rules', async () => {
    await sb.addFault({ operation: 'get', kind: 'slow', times: 5 });
    expect((await sb.raw('GET', '/_sandbox/faults')).body.pending).toEqual([{ operation: 'get', kind: 'slow', times: 5 }]);
    expect((await sb.raw('DELETE', '/_sandbox/faults')).status).toBe(204);
    expect((await sb.raw('GET', '/_sandbox/faults')).body.pending).toEqual([]);
  });

  it('refuses a malformed rule', async () => {
    const response = await sb.addFault({ kind: 'explode' as 'slow' });
    expect(response.status).toBe(400);
    expect(response.body.cause.body[0]).toMatch(/kind/);
  });

  it('applies rates from settings to every call', async () => {
    const flaky = await startSandbox({ faults: { failBeforeRate: 1 } });
    try {
      expect((await flaky.get('/balance')).status).toBe(500);
      expect((await flaky.create('r1', sbpPayment('sbp_bank_id_success'))).status).toBe(500);
      expect(await flaky.effects('r1')).toMatchObject({ creates: 0 });
    } finally {
      await flaky.close();
    }
  });
});

describe('inspection routes', () => {
  it('need the bearer token', async () => {
    expect((await sb.raw('GET', '/_sandbox/payments', { token: null })).status).toBe(401);
  });

  it('report every payment with its call and effect counts', async () => {
    const { payments } = (await sb.raw('GET', '/_sandbox/payments')).body;
    expect(payments.find((p: { paymentId: string }) => p.paymentId === 'f4')).toMatchObject({ creates: 1, executions: 1 });
  });

  it('answer 404 for a paymentId never seen', async () => {
    expect((await sb.raw('GET', '/_sandbox/payments/never')).status).toBe(404);
  });
});
