import { request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fromMinorUnits, toMinorUnits } from '../../src/money/money.ts';
import { signPayment } from '../../src/payout/signature.ts';
import { eventually } from '../support/eventually.ts';
import { testPrivateKey } from '../support/keys.ts';
import { AGENT, sbpPayment, startSandbox, TOKEN, type TestSandbox } from '../support/sandbox.ts';

// Every test gets its own sandbox: a rule or rate left behind by one must not hit another.
let sb: TestSandbox;
beforeEach(async () => {
  sb = await startSandbox();
});
afterEach(() => sb.close());

/** An execute with undici's own reading, for answers the JSON helpers cannot read. */
async function executeUnparsed(target: TestSandbox, paymentId: string) {
  const response = await request(`${target.url}${target.agentPath(`/payments/${paymentId}/execute`)}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  const body = await response.body.text().then(
    (text) => ({ text }),
    (error: Error) => ({ error }),
  );
  return { status: response.statusCode, headers: response.headers, ...body };
}

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
    expect(await sb.effects('f2')).toMatchObject({ createCalls: 1, creates: 1 });
  });

  it('fail-before-html answers a proxy 502 page and the create never happened', async () => {
    await sb.addFault({ operation: 'create', kind: 'fail-before-html' });
    const response = await sb.create('h1', sbpPayment('sbp_bank_id_success'));
    expect(response.status).toBe(502);
    expect(response.headers['content-type']).toBe('text/html');
    expect(response.text).toBe('<html><body><h1>502 Bad Gateway</h1></body></html>');
    expect((await sb.get('/payments/h1')).status).toBe(404);
    expect(await sb.effects('h1')).toMatchObject({ createCalls: 1, creates: 0 });
  });

  it('fail-after-html answers a proxy 504 page although the execute took effect', async () => {
    await sb.create('h2', sbpPayment('sbp_bank_id_success'));
    await sb.addFault({ operation: 'execute', kind: 'fail-after-html' });
    const response = await sb.execute('h2');
    expect(response.status).toBe(504);
    expect(response.headers['content-type']).toBe('text/html');
    expect(response.text).toContain('<h1>504 Gateway Time-out</h1>');
    expect(await sb.effects('h2')).toMatchObject({ executeCalls: 1, executions: 1, status: 'COMPLETED', debited: '110.00' });
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

  it('truncate-after answers 200 with the full Content-Length but only half the body, after the execute took effect', async () => {
    await sb.create('t1', sbpPayment('sbp_bank_id_success'));
    await sb.addFault({ operation: 'execute', kind: 'truncate-after' });
    const answer = await executeUnparsed(sb, 't1');
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    expect(Number(answer.headers['content-length'])).toBeGreaterThan(100);
    expect('error' in answer && answer.error).toBeInstanceOf(Error);
    expect(await sb.effects('t1')).toMatchObject({ executeCalls: 1, executions: 1, status: 'COMPLETED' });
  });

  it('truncate-after cuts a refusal short too, keeping its status', async () => {
    await sb.create('t2', sbpPayment('sbp_bank_id_success'));
    await sb.addFault({ operation: 'create', kind: 'truncate-after' });
    const response = await request(`${sb.url}${sb.agentPath('/payments/t2')}`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/json',
        signature: signPayment(testPrivateKey, AGENT, 't2', sbpPayment('sbp_bank_id_success')),
      },
      body: JSON.stringify(sbpPayment('sbp_bank_id_success')),
    });
    expect(response.statusCode).toBe(409);
    await expect(response.body.text()).rejects.toThrow();
  });

  it('hold-after keeps the answer back after the effect until released, then answers normally', async () => {
    await sb.create('hold1', sbpPayment('sbp_bank_id_success'));
    await sb.addFault({ operation: 'execute', kind: 'hold-after' });
    let answered = false;
    const pending = sb.execute('hold1').finally(() => (answered = true));
    await eventually(async () => expect((await sb.faultState()).held).toBe(1));
    expect((await sb.faultState()).holding).toEqual([{ operation: 'execute', paymentId: 'hold1' }]);
    // The effect is there while its answer is not: the moment a crash leaves unrecorded.
    expect(await sb.effects('hold1')).toMatchObject({ executions: 1, status: 'COMPLETED' });
    expect(answered).toBe(false);

    const release = await sb.releaseHeld();
    expect(release).toMatchObject({ status: 200, body: { released: 1 } });
    const response = await pending;
    expect(response.status).toBe(200);
    expect(response.body.status.value).toBe('COMPLETED');
    expect((await sb.faultState()).held).toBe(0);
  });

  it('hold-before keeps the call back with no effect until released, then answers 500 with nothing done', async () => {
    await sb.create('holdb1', sbpPayment('sbp_bank_id_success'));
    await sb.addFault({ operation: 'execute', kind: 'hold-before' });
    const pending = sb.execute('holdb1');
    await eventually(async () => expect((await sb.faultState()).held).toBe(1));
    expect((await sb.faultState()).holding).toEqual([{ operation: 'execute', paymentId: 'holdb1' }]);
    // Received, not acted on: the payment is READY while the call is held.
    expect(await sb.effects('holdb1')).toMatchObject({ executeCalls: 1, executions: 0, status: 'READY' });
    expect((await sb.releaseHeld()).body).toEqual({ released: 1 });
    const response = await pending;
    expect(response.status).toBe(500);
    expect(response.body.errorCode).toBe('payout.internal.error');
    expect(await sb.effects('holdb1')).toMatchObject({ executeCalls: 1, executions: 0, status: 'READY' });
  });

  it('hold-after survives its caller going away, and the sandbox serves on', async () => {
    await sb.create('hold2', sbpPayment('sbp_bank_id_success'));
    await sb.addFault({ operation: 'execute', kind: 'hold-after' });
    const caller = new AbortController();
    const pending = request(`${sb.url}${sb.agentPath('/payments/hold2/execute')}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
      signal: caller.signal,
    });
    await eventually(async () => expect((await sb.faultState()).held).toBe(1));
    caller.abort();
    await expect(pending).rejects.toThrow();
    expect((await sb.releaseHeld()).body).toEqual({ released: 1 });
    expect((await sb.get('/payments/hold2')).body.status.value).toBe('COMPLETED');
    expect(await sb.effects('hold2')).toMatchObject({ executeCalls: 1, executions: 1 });
  });

  it('close() lets held answers go, so a held request never keeps the sandbox open', async () => {
    const own = await startSandbox();
    await own.create('hold3', sbpPayment('sbp_bank_id_success'));
    await own.addFault({ operation: 'execute', kind: 'hold-after' });
    const pending = own.execute('hold3').then(
      () => 'answered',
      () => 'cut',
    );
    await eventually(async () => expect((await own.faultState()).held).toBe(1));
    await own.close();
    expect(['answered', 'cut']).toContain(await pending);
    expect(own.sandbox.held()).toEqual([]);
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
    expect((await sb.faultState()).pending).toEqual([{ operation: 'get', kind: 'slow', times: 5 }]);
    expect((await sb.raw('DELETE', '/_sandbox/faults')).status).toBe(204);
    expect((await sb.faultState()).pending).toEqual([]);
  });

  it('refuses a malformed rule', async () => {
    const response = await sb.addFault({ kind: 'explode' as 'slow' });
    expect(response.status).toBe(400);
    expect(response.body.cause.body[0]).toMatch(/kind/);
  });
});

describe('fault rates', () => {
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

  it('limits rate-drawn faults to rateOperations', async () => {
    const flaky = await startSandbox({ faults: { failAfterRate: 1, rateOperations: ['execute'] } });
    try {
      expect((await flaky.get('/balance')).status).toBe(200);
      expect((await flaky.create('r2', sbpPayment('sbp_bank_id_success'))).status).toBe(200);
      expect((await flaky.execute('r2')).status).toBe(500);
      expect(await flaky.effects('r2')).toMatchObject({ creates: 1, executions: 1, status: 'COMPLETED' });
    } finally {
      await flaky.close();
    }
  });

  it('lets a queued rule hit an operation outside rateOperations', async () => {
    const flaky = await startSandbox({ faults: { failBeforeRate: 1, rateOperations: ['execute'] } });
    try {
      await flaky.addFault({ operation: 'balance', kind: 'rate-limit' });
      expect((await flaky.get('/balance')).status).toBe(429);
      expect((await flaky.get('/balance')).status).toBe(200);
    } finally {
      await flaky.close();
    }
  });

  it.each([
    ['failBeforeHtmlRate', 502, 'READY', 0],
    ['failAfterHtmlRate', 504, 'COMPLETED', 1],
    ['rateLimitRate', 429, 'READY', 0],
  ] as const)('%s draws its fault (%i, payment %s)', async (rate, status, paymentStatus, executions) => {
    const own = await startSandbox({ random: () => 0 });
    try {
      await own.create('r3', sbpPayment('sbp_bank_id_success'));
      await own.setRates({ [rate]: 1, rateOperations: ['execute'] });
      expect((await own.execute('r3')).status).toBe(status);
      expect(await own.effects('r3')).toMatchObject({ executions, status: paymentStatus });
    } finally {
      await own.close();
    }
  });

  it('truncateRate and dropBeforeRate draw theirs', async () => {
    const own = await startSandbox({ random: () => 0 });
    try {
      await own.create('r4', sbpPayment('sbp_bank_id_success'));
      await own.create('r5', sbpPayment('sbp_bank_id_success'));
      await own.setRates({ truncateRate: 1, rateOperations: ['execute'] });
      const truncated = await executeUnparsed(own, 'r4');
      expect(truncated.status).toBe(200);
      expect('error' in truncated).toBe(true);
      await own.setRates({ dropBeforeRate: 1, rateOperations: ['execute'] });
      await expect(own.execute('r5')).rejects.toThrow();
      expect(await own.effects('r4')).toMatchObject({ executions: 1, status: 'COMPLETED' });
      expect(await own.effects('r5')).toMatchObject({ executions: 0, status: 'READY' });
    } finally {
      await own.close();
    }
  });

  it('are read and replaced at run time with PUT, where what is left out means no fault', async () => {
    const put = await sb.setRates({ failBeforeRate: 1, rateOperations: ['balance'] });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ failBeforeRate: 1, failAfterRate: 0, truncateRate: 0, rateOperations: ['balance'] });
    expect((await sb.raw('GET', '/_sandbox/faults/rates')).body).toEqual(put.body);
    expect((await sb.get('/balance')).status).toBe(500);
    expect((await sb.get('/providers')).status).toBe(200);

    expect((await sb.setRates({})).body).not.toHaveProperty('rateOperations');
    expect((await sb.get('/balance')).status).toBe(200);
    expect((await sb.faultState()).rates).toMatchObject({ failBeforeRate: 0, slowMs: 30_000 });
  });

  it('are changed field by field with PATCH; rateOperations null lifts the limit', async () => {
    await sb.setRates({ failBeforeRate: 1, rateOperations: ['providers'], latencyMs: 1 });
    const patched = await sb.changeRates({ rateOperations: null });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ failBeforeRate: 1, latencyMs: 1 });
    expect(patched.body).not.toHaveProperty('rateOperations');
    expect((await sb.get('/balance')).status).toBe(500);
    expect((await sb.changeRates({ failBeforeRate: 0 })).body).toMatchObject({ failBeforeRate: 0, latencyMs: 1 });
    expect((await sb.get('/balance')).status).toBe(200);
  });

  it.each([
    ['a rate above 1', { failAfterRate: 2 }, /failAfterRate/],
    ['rates adding up to more than 1', { failBeforeRate: 0.6, failAfterRate: 0.6 }, /add up to more than 1/],
    ['an unknown field', { failAfterHTMLRate: 0.1 }, /failAfterHTMLRate|unrecognized/i],
    ['an unknown operation', { rateOperations: ['pay'] }, /rateOperations/],
    ['a negative latency', { latencyMs: -1 }, /latencyMs/],
  ])('refuse %s and keep the rates as they were', async (_case, body, message) => {
    await sb.setRates({ slowRate: 0.25 });
    for (const method of ['PUT', 'PATCH']) {
      const response = await sb.raw(method, '/_sandbox/faults/rates', {
        body: JSON.stringify(body),
        headers: { 'content-type': 'application/json' },
      });
      expect(response.status, method).toBe(400);
      expect(response.body.errorCode).toBe('validation.error');
      expect(JSON.stringify(response.body.cause ?? response.body.description)).toMatch(message);
    }
    expect((await sb.faultState()).rates).toMatchObject({ slowRate: 0.25, failAfterRate: 0, failBeforeRate: 0 });
  });

  it('refuses a PATCH that would push the sum past 1', async () => {
    await sb.setRates({ failBeforeRate: 0.7 });
    const response = await sb.changeRates({ failAfterRate: 0.7 });
    expect(response.status).toBe(400);
    expect((await sb.faultState()).rates).toMatchObject({ failBeforeRate: 0.7, failAfterRate: 0 });
  });
});

describe('inspection routes', () => {
  it('need the bearer token', async () => {
    expect((await sb.raw('GET', '/_sandbox/payments', { token: null })).status).toBe(401);
    expect((await sb.raw('PUT', '/_sandbox/faults/rates', { token: null, body: '{}' })).status).toBe(401);
  });

  it('report every payment called, with calls received and the ones that took effect', async () => {
    await sb.create('e1', sbpPayment('sbp_bank_id_success'));
    await sb.addFault({ operation: 'execute', kind: 'drop-after' });
    await expect(sb.execute('e1')).rejects.toThrow();
    await sb.execute('e1');
    await sb.addFault({ operation: 'create', kind: 'fail-after' });
    await sb.create('e2', sbpPayment('sbp_bank_id_success'));
    expect((await sb.create('e2', sbpPayment('sbp_bank_id_success'))).status).toBe(409);
    await sb.addFault({ operation: 'create', kind: 'fail-before' });
    await sb.create('e3', sbpPayment('sbp_bank_id_success'));
    await sb.create('e4', sbpPayment('sbp_bank_id_execute_failed'));
    await sb.execute('e4');

    const byId = Object.fromEntries((await sb.allEffects()).map((p) => [p.paymentId, p]));
    expect(byId).toEqual({
      e1: { paymentId: 'e1', status: 'COMPLETED', createCalls: 1, creates: 1, executeCalls: 2, executions: 1, debited: '110.00' },
      e2: { paymentId: 'e2', status: 'READY', createCalls: 2, creates: 1, executeCalls: 0, executions: 0, debited: '0.00' },
      e3: { paymentId: 'e3', status: 'NONE', createCalls: 1, creates: 0, executeCalls: 0, executions: 0, debited: '0.00' },
      e4: { paymentId: 'e4', status: 'FAILED', createCalls: 1, creates: 1, executeCalls: 1, executions: 1, debited: '0.00' },
    });
  });

  it('answer 404 for a paymentId never seen', async () => {
    expect((await sb.raw('GET', '/_sandbox/payments/never')).status).toBe(404);
    expect((await sb.raw('GET', '/_sandbox/faults/nothing')).status).toBe(404);
  });
});

describe('balance ledger', () => {
  it('starts at the starting balance with nothing debited', async () => {
    const own = await startSandbox({ balance: '5000.00' });
    try {
      expect(await own.balanceLedger()).toEqual({
        currency: 'RUB',
        startingBalance: '5000.00',
        adjustments: '0.00',
        balance: '5000.00',
        change: '0.00',
        debited: { payments: 0, amount: '0.00', commission: '0.00', total: '0.00' },
        completed: { payments: 0, amount: '0.00', commission: '0.00', total: '0.00' },
        inProgress: { payments: 0, amount: '0.00', commission: '0.00', total: '0.00' },
      });
    } finally {
      await own.close();
    }
  });

  it('accounts for every kopeck: completed plus in-progress amounts and commission equal the balance change', async () => {
    const own = await startSandbox({ balance: '10000.00', inProgressMs: 60_000 });
    try {
      await own.create('b1', sbpPayment('sbp_bank_id_success', '2000.00')); // commission 14.00
      await own.execute('b1');
      await own.create('b2', sbpPayment('sbp_bank_id_execute_in_progress', '100.00')); // commission 10.00
      await own.execute('b2');
      await own.create('b3', sbpPayment('sbp_bank_id_execute_failed', '300.00'));
      await own.execute('b3');
      await own.create('b4', sbpPayment('sbp_bank_id_success', '1500.55')); // commission 10.51
      await own.addFault({ operation: 'execute', kind: 'fail-after' });
      expect((await own.execute('b4')).status).toBe(500);
      await own.create('b5', sbpPayment('sbp_bank_id_success', '50.00')); // never executed

      const ledger = await own.balanceLedger();
      expect(ledger).toMatchObject({
        startingBalance: '10000.00',
        balance: '6364.94',
        change: '-3635.06',
        completed: { payments: 2, amount: '3500.55', commission: '24.51', total: '3525.06' },
        inProgress: { payments: 1, amount: '100.00', commission: '10.00', total: '110.00' },
        debited: { payments: 3, amount: '3600.55', commission: '34.51', total: '3635.06' },
      });
      expect(ledger.balance).toBe((await own.get('/balance')).body.balance.value);
      const change = toMinorUnits(ledger.startingBalance) - toMinorUnits(ledger.balance);
      expect(fromMinorUnits(change)).toBe(ledger.debited.total);
    } finally {
      await own.close();
    }
  });

  it('gives the money of an IN_PROGRESS payment back when it ends FAILED', async () => {
    const own = await startSandbox({ balance: '1000.00', inProgressMs: 30 });
    try {
      await own.create('b6', sbpPayment('sbp_bank_id_execute_in_progress_failed', '100.00'));
      await own.execute('b6');
      await eventually(async () => expect((await own.get('/payments/b6')).body.status.value).toBe('FAILED'));
      expect(await own.balanceLedger()).toMatchObject({ balance: '1000.00', change: '0.00', debited: { payments: 0, total: '0.00' } });
    } finally {
      await own.close();
    }
  });
});
