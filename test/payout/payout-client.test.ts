import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PayoutClient } from '../../src/payout/client.ts';
import { PayoutApiError, PayoutNetworkError, PayoutResponseError } from '../../src/payout/errors.ts';
import { sbpPayment, startSandbox, type TestSandbox } from '../support/sandbox.ts';

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
    await client.putPayment(id, sbpPayment('sbp_bank_id_success'));
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
    const error = await caught(client.putPayment(newId(), payload));
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
    await expect(client.putPayment('x'.repeat(37), sbpPayment('sbp_bank_id_success'))).rejects.toThrow(/1 to 36/);
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
    expect((error as PayoutResponseError).problem).toMatch(/available\.value/);
    // The message a caller may see names no transport detail.
    expect((error as Error).message).not.toMatch(/GET|\/balance|200/);
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

  it('reports an error status without an Error object as retryable: it proves nothing', async () => {
    reply = { status: 502, body: '<html>Bad gateway</html>' };
    const error = await caught(odd.getBalance());
    expect(error).toBeInstanceOf(PayoutResponseError);
    expect(error).toMatchObject({ httpStatus: 502, retryable: true });
  });

  it('reports a 2xx body cut short as retryable', async () => {
    reply = { status: 200, body: '{"available": {"curr' };
    expect(await caught(odd.getBalance())).toMatchObject({ code: 'upstream.invalid-response', retryable: true });
  });

  it('treats "try later" codes as retryable whatever the HTTP status, and not as a refusal', async () => {
    for (const errorCode of ['payout.provider.unavailable', 'payout.billing.timeout']) {
      reply = {
        status: 400,
        body: JSON.stringify({
          serviceName: 's',
          errorCode,
          userMessage: 'u',
          description: 'd',
          traceId: 't',
          dateTime: '2026-11-22T10:00:00+03:00',
        }),
      };
      const error = (await caught(odd.getBalance())) as PayoutApiError;
      expect(error).toMatchObject({ code: errorCode, retryable: true, refused: false });
    }
  });

  it('keeps a status error code newer than the client knows', async () => {
    const payment = {
      paymentId: 'p1',
      creationDateTime: '2026-11-22T10:00:00+03:00',
      expirationDateTime: '2026-11-23T10:00:00+03:00',
      status: { value: 'FAILED', changedDateTime: '2026-11-22T10:00:01+03:00', errorCode: 'PROVIDER_NEW_CODE_2027' },
      amount: { currency: 'RUB', value: '10.00' },
      recipientDetails: { providerCode: 'sbp-b2c', fields: { account: '79001234567', bankId: 'b' } },
      commission: { currency: 'RUB', value: '0.10' },
    };
    reply = { status: 200, body: JSON.stringify(payment) };
    expect((await odd.getPayment('p1')).status.errorCode).toBe('PROVIDER_NEW_CODE_2027');
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
