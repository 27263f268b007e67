import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PayoutClient } from '../src/payout/client.ts';
import {
  PaymentConflictError,
  PaymentOutcomeUnknownError,
  PayoutApiError,
  PayoutNetworkError,
  PayoutResponseError,
} from '../src/payout/errors.ts';
import { sbpPayment, startSandbox, type TestSandbox } from './support/sandbox.ts';

let sb: TestSandbox;
let client: PayoutClient;
beforeAll(async () => {
  sb = await startSandbox({ inProgressMs: 20 });
  client = sb.client();
});
afterAll(() => sb.close());

let sequence = 0;
const newId = () => `client-${++sequence}`;

async function caught<T>(promise: Promise<T>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('reads', () => {
  it('reads the balance and all balances as typed objects', async () => {
    expect((await client.getBalance()).available).toEqual({ currency: 'RUB', value: '10000000.00' });
    expect((await client.getBalances()).RUB?.balance?.value).toBe('10000000.00');
  });

  it('lists providers with `code` whatever key the upstream used', async () => {
    const providers = await client.listProviders();
    expect(providers).toContainEqual({ code: 'sbp-b2c', name: expect.any(String) });
  });

  it('reads provider details', async () => {
    const info = await client.getProvider('bank-card-russia-gph');
    expect(info.parameters.map((p) => p.extKey)).toContain('purpose');
  });

  it('lists and reads payments', async () => {
    const id = newId();
    await client.createPayment(id, sbpPayment('sbp_bank_id_success'));
    expect((await client.listPayments({ limit: 1 }))[0]?.paymentId).toBe(id);
    expect((await client.getPayment(id)).status.value).toBe('READY');
  });
});

describe('errors', () => {
  it('turns an Error object into a PayoutApiError with every field', async () => {
    const error = await caught(client.getProvider('nope' as 'sbp-b2c'));
    expect(error).toBeInstanceOf(PayoutApiError);
    expect(error).toMatchObject({
      httpStatus: 404,
      code: 'payout.provider.not-found',
      serviceName: 'payout-sandbox',
      userMessage: expect.any(String),
      description: expect.any(String),
      traceId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      dateTime: expect.any(String),
      retryable: false,
    });
  });

  it('keeps cause entries keyed by parameter', async () => {
    const payload = sbpPayment('sbp_bank_id_success', '5.00');
    const error = await caught(client.createPayment(newId(), payload));
    expect(error).toBeInstanceOf(PayoutApiError);
    expect((error as PayoutApiError).details.amount?.[0]).toMatch(/between/);
  });

  it('never puts the token or the signature in an error', async () => {
    const wrong = sb.client({ apiToken: 'super-secret-token' });
    const error = (await caught(wrong.getBalance())) as PayoutApiError;
    expect(error.code).toBe('auth.failed');
    expect(`${error.message} ${JSON.stringify(error)} ${error.stack}`).not.toContain('super-secret-token');
  });

  it('reports a refused connection as a network error that was never sent', async () => {
    const closed = sb.client({ baseUrl: 'http://127.0.0.1:1', maxRetries: 1 });
    const error = await caught(closed.getBalance());
    expect(error).toBeInstanceOf(PayoutNetworkError);
    expect(error).toMatchObject({ code: 'network.error', notSent: true });
  });

  it('refuses an invalid paymentId before calling', async () => {
    await expect(client.createPayment('x'.repeat(37), sbpPayment('sbp_bank_id_success'))).rejects.toThrow(/1 to 36/);
  });
});

describe('malformed upstream answers', () => {
  // A hand-made server, because the sandbox never answers off-spec on purpose.
  let server: Server;
  let odd: PayoutClient;
  let oddUrl: string;
  let reply: { status: number; body: string } = { status: 200, body: '' };
  let hits = 0;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      hits++;
      res.writeHead(reply.status, { 'content-type': 'application/json' }).end(reply.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    oddUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    odd = sb.client({ baseUrl: oddUrl, maxRetries: 0 });
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('accepts the model key `code` in the provider list', async () => {
    reply = { status: 200, body: JSON.stringify([{ code: 'sbp-b2c', name: 'SBP' }]) };
    expect(await odd.listProviders()).toEqual([{ code: 'sbp-b2c', name: 'SBP' }]);
  });

  it('names the bad field of a malformed success body', async () => {
    reply = { status: 200, body: JSON.stringify({ available: { currency: 'RUB', value: 12.5 } }) };
    const error = await caught(odd.getBalance());
    expect(error).toBeInstanceOf(PayoutResponseError);
    expect((error as Error).message).toMatch(/available\.value/);
  });

  it('does not retry a 4xx', async () => {
    const patient = sb.client({ baseUrl: oddUrl, maxRetries: 3 });
    reply = {
      status: 400,
      body: JSON.stringify({
        serviceName: 's',
        errorCode: 'payout.bad.request',
        userMessage: 'u',
        description: 'd',
        traceId: 't',
        dateTime: '2026-11-22T10:00:00+03:00',
      }),
    };
    hits = 0;
    expect(await caught(patient.getBalance())).toMatchObject({ httpStatus: 400, code: 'payout.bad.request' });
    expect(hits).toBe(1);
  });

  it('reports an error status without an Error object', async () => {
    reply = { status: 502, body: '<html>Bad gateway</html>' };
    const error = await caught(odd.getBalance());
    expect(error).toBeInstanceOf(PayoutResponseError);
    expect(error).toMatchObject({ httpStatus: 502 });
  });
});

describe('retries of reads', () => {
  it('retries 5xx and succeeds', async () => {
    await sb.addFault({ operation: 'balance', kind: 'fail-before', times: 2 });
    expect((await client.getBalance()).available.currency).toBe('RUB');
  });

  it('gives up after maxRetries + 1 attempts with the last error', async () => {
    await sb.addFault({ operation: 'balances', kind: 'fail-before', times: 4 });
    const error = await caught(client.getBalances());
    expect(error).toMatchObject({ httpStatus: 500, code: 'payout.internal.error' });
    expect((await sb.raw('GET', '/_sandbox/faults')).body.pending).toEqual([]);
  });

  it('retries 429 after Retry-After', async () => {
    await sb.addFault({ operation: 'providers', kind: 'rate-limit' });
    expect((await client.listProviders()).length).toBe(6);
  });

  it('returns a 429 at once when Retry-After is longer than it may wait', async () => {
    const impatient = sb.client({ maxRetryAfterMs: 100 });
    await sb.addFault({ operation: 'providers', kind: 'rate-limit' });
    expect(await caught(impatient.listProviders())).toMatchObject({ httpStatus: 429 });
  });

  it('retries a dropped connection and a timeout', async () => {
    const quick = sb.client({ headersTimeoutMs: 500 });
    await sb.addFault({ operation: 'balance', kind: 'drop-before' });
    await sb.addFault({ operation: 'balance', kind: 'slow' });
    sb.sandbox.faults.rates.slowMs = 2_500;
    expect((await quick.getBalance()).available.currency).toBe('RUB');
  });

});

describe('create: retried only with the same paymentId, settled by reading back', () => {
  it('creates once when the first attempt fails before taking effect', async () => {
    const id = newId();
    await sb.addFault({ operation: 'create', kind: 'fail-before' });
    const result = await client.createPayment(id, sbpPayment('sbp_bank_id_success'));
    expect(result).toMatchObject({ existed: false, payment: { paymentId: id, status: { value: 'READY' } } });
    expect(await sb.effects(id)).toMatchObject({ createCalls: 2, creates: 1 });
  });

  it.each(['fail-after', 'drop-after'] as const)(
    'after %s, reads the payment back on payout.resource.exists and returns it',
    async (kind) => {
      const id = newId();
      await sb.addFault({ operation: 'create', kind });
      const result = await client.createPayment(id, sbpPayment('sbp_bank_id_success'));
      expect(result).toMatchObject({ existed: true, payment: { paymentId: id, status: { value: 'READY' } } });
      expect(await sb.effects(id)).toMatchObject({ createCalls: 2, creates: 1 });
    },
  );

  it('after a timeout on create, settles the same way', async () => {
    const id = newId();
    const quick = sb.client({ headersTimeoutMs: 500 });
    sb.sandbox.faults.rates.slowMs = 2_500;
    await sb.addFault({ operation: 'create', kind: 'slow' });
    expect((await quick.createPayment(id, sbpPayment('sbp_bank_id_success'))).existed).toBe(true);
    expect((await sb.effects(id)).creates).toBe(1);
  });

  it('when every attempt fails after taking effect, reads back once retries run out', async () => {
    const id = newId();
    await sb.addFault({ operation: 'create', kind: 'fail-after', times: 4 });
    const result = await client.createPayment(id, sbpPayment('sbp_bank_id_success'));
    expect(result.existed).toBe(true);
    expect(await sb.effects(id)).toMatchObject({ createCalls: 4, creates: 1 });
  });

  it('when every attempt fails before taking effect, reports the last error (nothing was created)', async () => {
    const id = newId();
    await sb.addFault({ operation: 'create', kind: 'fail-before', times: 4 });
    const error = await caught(client.createPayment(id, sbpPayment('sbp_bank_id_success')));
    expect(error).toMatchObject({ httpStatus: 500, code: 'payout.internal.error' });
    expect((await sb.get(`/payments/${id}`)).status).toBe(404);
  });

  it('reports an unknown outcome when neither create nor the read back answers', async () => {
    const id = newId();
    // 4 create attempts, then the read back and its 3 retries.
    await sb.addFault({ operation: 'any', kind: 'fail-after', times: 8 });
    const error = await caught(client.createPayment(id, sbpPayment('sbp_bank_id_success')));
    expect(error).toBeInstanceOf(PaymentOutcomeUnknownError);
    expect(error).toMatchObject({ code: 'payout.outcome.unknown', operation: 'create', paymentId: id });
    expect((await sb.effects(id)).creates).toBe(1);
  });

  it('returns the existing payment for a repeated create with the same details', async () => {
    const id = newId();
    await client.createPayment(id, sbpPayment('sbp_bank_id_success'));
    expect((await client.createPayment(id, sbpPayment('sbp_bank_id_success'))).existed).toBe(true);
    expect((await sb.effects(id)).creates).toBe(1);
  });

  it('refuses a paymentId that exists with another amount or recipient', async () => {
    const id = newId();
    await client.createPayment(id, sbpPayment('sbp_bank_id_success', '100.00'));
    const error = await caught(client.createPayment(id, sbpPayment('sbp_bank_id_execute_failed', '200.00')));
    expect(error).toBeInstanceOf(PaymentConflictError);
    expect((error as PaymentConflictError).differences).toEqual(['amount', 'recipient field bankId']);
  });

  it('signs with its private key: a key the sandbox does not know is refused with 401', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const stranger = sb.client({ privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, maxRetries: 0 });
    expect(await caught(stranger.createPayment(newId(), sbpPayment('sbp_bank_id_success')))).toMatchObject({
      httpStatus: 401,
      code: 'auth.failed',
    });
  });
});

describe('execute: never repeated blindly', () => {
  async function ready(bankId = 'sbp_bank_id_success') {
    const id = newId();
    await client.createPayment(id, sbpPayment(bankId));
    return id;
  }

  it('executes a READY payment', async () => {
    const id = await ready();
    expect(await client.executePayment(id)).toMatchObject({ readBack: false, payment: { status: { value: 'COMPLETED' } } });
  });

  it.each(['fail-after', 'drop-after'] as const)('after %s, reads back the completed payment and does not execute again', async (kind) => {
    const id = await ready();
    await sb.addFault({ operation: 'execute', kind });
    expect(await client.executePayment(id)).toMatchObject({ readBack: true, payment: { status: { value: 'COMPLETED' } } });
    expect(await sb.effects(id)).toMatchObject({ executeCalls: 1, executions: 1, debited: '110.00' });
  });

  it('after a timeout, reads back instead of repeating', async () => {
    const id = await ready();
    const quick = sb.client({ headersTimeoutMs: 500 });
    sb.sandbox.faults.rates.slowMs = 2_500;
    await sb.addFault({ operation: 'execute', kind: 'slow' });
    expect(await quick.executePayment(id)).toMatchObject({ readBack: true, payment: { status: { value: 'COMPLETED' } } });
    expect(await sb.effects(id)).toMatchObject({ executeCalls: 1, executions: 1 });
  });

  it('executes again only after reading the payment as READY', async () => {
    const id = await ready();
    await sb.addFault({ operation: 'execute', kind: 'drop-before' });
    expect(await client.executePayment(id)).toMatchObject({ readBack: true, payment: { status: { value: 'COMPLETED' } } });
    expect(await sb.effects(id)).toMatchObject({ executeCalls: 2, executions: 1 });
  });

  it('returns IN_PROGRESS read back as it is', async () => {
    const id = await ready('sbp_bank_id_execute_in_progress');
    await sb.addFault({ operation: 'execute', kind: 'fail-after' });
    expect(await client.executePayment(id)).toMatchObject({ readBack: true, payment: { status: { value: 'IN_PROGRESS' } } });
  });

  it('reports the last error when every attempt failed before taking effect', async () => {
    const id = await ready();
    await sb.addFault({ operation: 'execute', kind: 'fail-before', times: 4 });
    expect(await caught(client.executePayment(id))).toMatchObject({ httpStatus: 500 });
    expect(await sb.effects(id)).toMatchObject({ executeCalls: 4, executions: 0, status: 'READY' });
  });

  it('reports an unknown outcome when the read back fails too', async () => {
    const id = await ready();
    await sb.addFault({ operation: 'execute', kind: 'fail-after' });
    await sb.addFault({ operation: 'get', kind: 'fail-before', times: 4 });
    const error = await caught(client.executePayment(id));
    expect(error).toBeInstanceOf(PaymentOutcomeUnknownError);
    expect(error).toMatchObject({ operation: 'execute' });
    expect((await sb.effects(id)).executions).toBe(1);
  });

  it('does not retry a 404', async () => {
    expect(await caught(client.executePayment('never-created'))).toMatchObject({ httpStatus: 404, code: 'payout.payment.not-found' });
    expect((await sb.effects('never-created')).executeCalls).toBe(1);
  });
});
