import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PayoutApiError, PayoutNetworkError } from '../../src/payout/errors.ts';
import { ErrorBody } from '../../src/payout/models.ts';
import { eventually } from '../support/eventually.ts';
import { sbpPayment, startSandbox, type TestSandbox } from '../support/sandbox.ts';

const json = (body: unknown) => ({ body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });

async function caught<T>(promise: Promise<T>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

// Every test gets its own sandbox: an outage left behind by one must not hit another.
let sb: TestSandbox;
beforeEach(async () => {
  sb = await startSandbox();
});
afterEach(() => sb.close());

const outage = async () => (await sb.raw('GET', '/_sandbox/outage')).body.outage;
const calls = async () => (await sb.raw('GET', '/_sandbox/calls')).body;

/** Payday trouble: the sandbox refuses connections, hangs, or answers 503/429 for a while (test features). */
describe('sandbox outage: refused connections', () => {
  it("refuses connections, which the gateway's client sees as a connect failure that was never sent, until cleared", async () => {
    const client = sb.client({ maxRetries: 0 });
    // A kept-alive connection exists before the outage, as in a running gateway.
    await client.getBalance();
    const set = await sb.raw('POST', '/_sandbox/outage', json({ mode: 'refuse', for: '10m' }));
    expect(set.status).toBe(201);
    expect(set.body.outage).toMatchObject({
      mode: 'refuse',
      kinds: ['create', 'execute', 'read', 'balance', 'list'],
      until: expect.any(String),
    });
    const before = sb.sandbox.testFeatures.calls();

    const error = await caught(client.getBalance());
    expect(error).toBeInstanceOf(PayoutNetworkError);
    expect(error).toMatchObject({ phase: 'connect', notSent: true, code: 'network.error' });
    expect((error as Error).cause).toMatchObject({ code: 'ECONNREFUSED' });
    const create = await caught(client.putPayment('refused-1', sbpPayment('sbp_bank_id_success')));
    expect(create).toMatchObject({ notSent: true });
    // The test routes share the port: they are refused too, and the outage ends by its time or in process.
    await expect(sb.raw('GET', '/_sandbox/outage')).rejects.toMatchObject({ code: 'ECONNREFUSED' });

    expect(await sb.sandbox.outage.clear()).toMatchObject({ mode: 'refuse' });
    expect((await client.getBalance()).available.value).toBe('10000000.00');
    expect(await outage()).toBeNull();
    // Nothing reached the partner routes while they were refused.
    expect(sb.sandbox.testFeatures.calls().total).toBe(before.total + 1);
    expect(await sb.effects('refused-1')).toMatchObject({ errorCode: 'payout.payment.not-found' });
  });

  it('accepts connections again by itself once the period ends, on the same port', async () => {
    const client = sb.client({ maxRetries: 0 });
    expect((await sb.raw('POST', '/_sandbox/outage', json({ mode: 'refuse', for: '300ms' }))).status).toBe(201);
    await eventually(async () => expect((await client.getBalance()).balance?.value).toBe('10000000.00'));
    expect(await outage()).toBeNull();
  });

  it('refuses an outage it cannot make, naming the field', async () => {
    const scoped = await sb.raw('POST', '/_sandbox/outage', json({ mode: 'refuse', for: '1m', kinds: ['create'] }));
    expect(scoped.status).toBe(400);
    expect(scoped.body).toMatchObject({ errorCode: 'validation.error', cause: { kinds: [expect.stringMatching(/whole port/)] } });
    const badFor = await sb.raw('POST', '/_sandbox/outage', json({ mode: 'hang', for: '2 minutes' }));
    expect(badFor.body).toMatchObject({ errorCode: 'validation.error', cause: { for: [expect.stringMatching(/90s, 2m/)] } });
    const noFor = await sb.raw('POST', '/_sandbox/outage', json({ mode: 'status', status: 503 }));
    expect(noFor.body.cause).toHaveProperty('for');
    const badStatus = await sb.raw('POST', '/_sandbox/outage', json({ mode: 'status', status: 500, for: '1m' }));
    expect(badStatus.body.cause).toHaveProperty('status');
    const noStatus = await sb.raw('POST', '/_sandbox/outage', json({ mode: 'status', for: '1m' }));
    expect(noStatus.body.cause).toHaveProperty('status');
    expect(await outage()).toBeNull();
  });
});

describe('sandbox outage: a hang', () => {
  it('keeps a call unanswered until the hang is cleared, then answers it', async () => {
    const client = sb.client({ maxRetries: 0, headersTimeoutMs: 120_000 });
    await sb.raw('POST', '/_sandbox/outage', json({ mode: 'hang', for: '10m' }));
    let settled = false;
    const pending = client.getBalance().finally(() => (settled = true));
    await eventually(async () => expect((await outage()).hanging).toBe(1));
    expect(settled).toBe(false);
    const cleared = await sb.raw('DELETE', '/_sandbox/outage');
    expect(cleared.status).toBe(200);
    expect(cleared.body.ended).toMatchObject({ mode: 'hang', hanging: 1 });
    expect((await pending).balance?.value).toBe('10000000.00');
    expect(await outage()).toBeNull();
  });

  it('with then "drop", cuts the waiting calls when it ends, and a cut create never took effect', async () => {
    const client = sb.client({ maxRetries: 0, headersTimeoutMs: 120_000 });
    await sb.raw('POST', '/_sandbox/outage', json({ mode: 'hang', for: '10m', then: 'drop', kinds: ['create'] }));
    const pending = caught(client.putPayment('hung-1', sbpPayment('sbp_bank_id_success')));
    await eventually(async () => expect((await outage()).hanging).toBe(1));
    // Out of the hang's scope: answered at once.
    expect((await client.getBalance()).balance?.value).toBe('10000000.00');
    await sb.raw('DELETE', '/_sandbox/outage');
    const error = await pending;
    expect(error).toBeInstanceOf(PayoutNetworkError);
    expect(error).toMatchObject({ notSent: false });
    expect(await sb.effects('hung-1')).toMatchObject({ createCalls: 1, creates: 0, status: 'NONE' });
  });

  it('does not process a hung call whose caller gave up', async () => {
    const client = sb.client({ maxRetries: 0, headersTimeoutMs: 120_000 });
    await client.putPayment('hung-2', sbpPayment('sbp_bank_id_success'));
    await sb.raw('POST', '/_sandbox/outage', json({ mode: 'hang', for: '10m', kinds: ['execute'] }));
    const gaveUp = new AbortController();
    const pending = caught(client.postExecute('hung-2', { signal: gaveUp.signal }));
    await eventually(async () => expect((await outage()).hanging).toBe(1));
    gaveUp.abort(new Error('the worker gave up'));
    await pending;
    await eventually(async () => expect((await outage()).hanging).toBe(0));
    await sb.raw('DELETE', '/_sandbox/outage');
    expect(await sb.effects('hung-2')).toMatchObject({ status: 'READY', executeCalls: 1, executions: 0 });
  });
});

describe('sandbox outage: 503 and 429 answers', () => {
  it("answers 503 with Retry-After and the spec's Error object, takes no effect, and counts the call", async () => {
    const set = await sb.raw('POST', '/_sandbox/outage', json({ mode: 'status', status: 503, retryAfterSeconds: 5, for: '10m' }));
    expect(set.body.outage).toMatchObject({ mode: 'status', status: 503, retryAfterSeconds: 5 });
    const response = await sb.create('busy-1', sbpPayment('sbp_bank_id_success'));
    expect(response.status).toBe(503);
    expect(response.headers['retry-after']).toBe('5');
    expect(ErrorBody.safeParse(response.body).success).toBe(true);
    expect(response.body).toMatchObject({ errorCode: 'payout.provider.unavailable', serviceName: 'payout-sandbox' });
    expect(await sb.effects('busy-1')).toMatchObject({ status: 'NONE', createCalls: 1, creates: 0 });

    const error = await caught(sb.client({ maxRetries: 0 }).getBalance());
    expect(error).toBeInstanceOf(PayoutApiError);
    expect(error).toMatchObject({ httpStatus: 503, retryAfter: '5', retryable: true });

    expect(await calls()).toMatchObject({
      total: 2,
      byKind: { create: 1, execute: 0, read: 0, balance: 1, list: 0 },
      duringOutage: { total: 2, byKind: { create: 1, balance: 1 } },
    });
  });

  it('answers 429 only to the kinds named, with Retry-After the seconds left by default', async () => {
    await sb.raw('POST', '/_sandbox/outage', json({ mode: 'status', status: 429, for: '10m', kinds: ['execute'] }));
    expect((await sb.create('busy-2', sbpPayment('sbp_bank_id_success'))).status).toBe(200);
    const response = await sb.execute('busy-2');
    expect(response.status).toBe(429);
    const retryAfter = Number(response.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(500);
    expect(retryAfter).toBeLessThanOrEqual(600);
    expect(response.body.errorCode).toBe('payout.provider.unavailable');
    expect((await sb.get('/payments/busy-2')).body.status.value).toBe('READY');
    await sb.raw('DELETE', '/_sandbox/outage');
    expect((await sb.execute('busy-2')).body.status.value).toBe('COMPLETED');
  });

  it('ends by itself when the period ends', async () => {
    await sb.raw('POST', '/_sandbox/outage', json({ mode: 'status', status: 503, for: '200ms' }));
    await eventually(async () => expect((await sb.get('/balance')).status).toBe(200));
    expect(await outage()).toBeNull();
  });
});

describe('call counts', () => {
  it('counts the partner calls per kind since the last reset, and resets them', async () => {
    await sb.get('/balance');
    await sb.get('/balances');
    await sb.create('count-1', sbpPayment('sbp_bank_id_success'));
    await sb.execute('count-1');
    await sb.get('/payments/count-1');
    await sb.get('/providers');
    await sb.get('/payments');
    // Test routes and refused authentication are not partner calls.
    await sb.raw('GET', '/_sandbox/faults');
    const counted = await calls();
    expect(counted).toMatchObject({
      since: expect.any(String),
      total: 7,
      byKind: { create: 1, execute: 1, read: 2, balance: 2, list: 1 },
      duringOutage: { total: 0, byKind: { create: 0, execute: 0, read: 0, balance: 0, list: 0 } },
    });
    expect((await sb.raw('GET', '/_sandbox/list-calls')).body).toEqual({ calls: 1 });
    const reset = await sb.raw('DELETE', '/_sandbox/calls');
    expect(reset.status).toBe(200);
    expect(reset.body).toMatchObject({ total: 7 });
    expect(await calls()).toMatchObject({ total: 0, byKind: { list: 0 } });
    expect((await sb.raw('GET', '/_sandbox/list-calls')).body).toEqual({ calls: 0 });
  });

  it('counts the calls that arrived in a window, as a fault test asks what reached the partner while a breaker was open', async () => {
    await sb.get('/balance');
    // The window starts after the millisecond the balance read arrived in, and ends before the read's.
    const answered = Date.now();
    await eventually(() => expect(Date.now()).toBeGreaterThan(answered));
    const from = new Date();
    await sb.create('window-1', sbpPayment('sbp_bank_id_success'));
    await sb.execute('window-1');
    const to = new Date(Date.now() + 1);
    await eventually(() => expect(Date.now()).toBeGreaterThan(to.getTime()));
    await sb.get('/payments/window-1');

    const window = await sb.raw('GET', `/_sandbox/calls?from=${from.toISOString()}&to=${to.toISOString()}`);
    expect(window.status).toBe(200);
    expect(window.body.total).toBe(4);
    expect(window.body.between).toMatchObject({ total: 2, complete: true, byKind: { create: 1, execute: 1, read: 0, balance: 0 } });

    const backwards = await sb.raw('GET', `/_sandbox/calls?from=${to.toISOString()}&to=${from.toISOString()}`);
    expect(backwards.status).toBe(400);
    expect(backwards.body.description).toMatch(/from before to/);
  });
});
