import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { statusErrorCodes, type PaymentPayload, type ProviderCode } from '../../src/payout/models.ts';
import { testCards, UNLISTED_STATUS_ERROR_CODE } from '../../src/sandbox/outcomes.ts';
import { eventually } from '../support/eventually.ts';
import { sbpPayment, startSandbox, type TestSandbox } from '../support/sandbox.ts';

// A sandbox per test: the balance checks below must see only their own payments.
let sb: TestSandbox;
beforeEach(async () => {
  sb = await startSandbox({ inProgressMs: 50 });
});
afterEach(() => sb.close());

let sequence = 0;
const newId = () => `outcome-${++sequence}`;

const cardFields: Record<string, Record<string, string>> = {
  'bank-card-russia': {},
  'bank-card-russia-fio': { lastName: 'Ivanov', firstName: 'Ivan' },
  'bank-card-russia-gph': { lastName: 'Ivanov', firstName: 'Ivan', purpose: 'Design work' },
};

function payloadFor(providerCode: ProviderCode, value: string, amount = '100.00'): PaymentPayload {
  const fields: Record<string, string> =
    providerCode === 'sbp-b2c'
      ? { account: '79001234567', bankId: value }
      : providerCode === 'bank-card-token'
        ? { account: value }
        : { pan: value, ...cardFields[providerCode] };
  return { amount: { value: amount, currency: 'RUB' }, recipientDetails: { providerCode, fields } };
}

// The spec's "Sandbox outcome selection" table, one row per case.
const table: Array<[ProviderCode, string, 'COMPLETED' | 'FAILED at create' | 'FAILED at execute' | 'IN_PROGRESS']> = [];
for (const provider of ['bank-card-russia', 'bank-card-russia-fio', 'bank-card-russia-gph'] as const) {
  table.push(
    [provider, testCards.completed, 'COMPLETED'],
    [provider, testCards.createFailed, 'FAILED at create'],
    [provider, testCards.executeFailed, 'FAILED at execute'],
    [provider, testCards.inProgress, 'IN_PROGRESS'],
  );
}
table.push(
  ['sbp-b2c', 'sbp_bank_id_success', 'COMPLETED'],
  ['sbp-b2c', 'sbp_bank_id_create_failed', 'FAILED at create'],
  ['sbp-b2c', 'sbp_bank_id_execute_failed', 'FAILED at execute'],
  ['sbp-b2c', 'sbp_bank_id_execute_in_progress', 'IN_PROGRESS'],
  ['bank-card-token', 'token_success', 'COMPLETED'],
  ['bank-card-token', 'token_create_failed', 'FAILED at create'],
  ['bank-card-token', 'token_execute_failed', 'FAILED at execute'],
  ['bank-card-token', 'token_execute_in_progress', 'IN_PROGRESS'],
);

describe('sandbox outcome table', () => {
  it.each(table)('%s with %s ends %s', async (provider, value, outcome) => {
    const id = newId();
    const created = await sb.create(id, payloadFor(provider, value));
    expect(created.status).toBe(200);
    if (outcome === 'FAILED at create') {
      expect(created.body.status).toMatchObject({ value: 'FAILED', errorCode: 'BILLING_DECLINED' });
      const executed = await sb.execute(id);
      expect(executed.body.status.value).toBe('FAILED');
      expect((await sb.effects(id)).executions).toBe(0);
      return;
    }
    expect(created.body.status.value).toBe('READY');
    const executed = await sb.execute(id);
    expect(executed.status).toBe(200);
    if (outcome === 'COMPLETED') {
      expect(executed.body.status.value).toBe('COMPLETED');
      expect(executed.body.billingDetails).toMatchObject({ transactionId: expect.any(String), rrn: expect.stringMatching(/^\d{12}$/) });
    } else if (outcome === 'FAILED at execute') {
      expect(executed.body.status).toMatchObject({ value: 'FAILED', errorCode: 'BILLING_DECLINED', errorMessage: expect.any(String) });
    } else {
      expect(executed.body.status.value).toBe('IN_PROGRESS');
      await eventually(async () => expect((await sb.get(`/payments/${id}`)).body.status.value).toBe('COMPLETED'));
    }
  });

  it.each([
    ['sbp-fio', 'sbp_bank_id_execute_failed'],
    ['sbp-b2c', 'some_other_bank'],
    ['bank-card-russia', '4111111111111111'],
    ['bank-card-token', 'any_token'],
  ] as const)('treats %s with %s (outside the table) as success', async (provider, value) => {
    const id = newId();
    const payload: PaymentPayload =
      provider === 'sbp-fio'
        ? {
            ...payloadFor('sbp-b2c', value),
            recipientDetails: {
              providerCode: 'sbp-fio',
              fields: { account: '79001234567', bankId: value, lastName: 'Ivanov', firstName: 'Ivan' },
            },
          }
        : payloadFor(provider, value);
    expect((await sb.create(id, payload)).body.status.value).toBe('READY');
    expect((await sb.execute(id)).body.status.value).toBe('COMPLETED');
  });

  it('settles the IN_PROGRESS-then-FAILED extension values as FAILED and returns the held money', async () => {
    const before = (await sb.get('/balance')).body.balance.value;
    for (const [provider, value] of [
      ['sbp-b2c', 'sbp_bank_id_execute_in_progress_failed'],
      ['bank-card-token', 'token_execute_in_progress_failed'],
      ['bank-card-russia', testCards.inProgressThenFailed],
    ] as const) {
      const id = newId();
      await sb.create(id, payloadFor(provider, value));
      expect((await sb.execute(id)).body.status.value).toBe('IN_PROGRESS');
      await eventually(async () =>
        expect((await sb.get(`/payments/${id}`)).body.status).toMatchObject({ value: 'FAILED', errorCode: 'BILLING_DECLINED' }),
      );
    }
    expect((await sb.get('/balance')).body.balance.value).toBe(before);
  });
});

describe('a status errorCode the spec does not list (sandbox extension)', () => {
  it.each([
    ['sbp-b2c', 'sbp_bank_id_execute_failed_new_code'],
    ['bank-card-token', 'token_execute_failed_new_code'],
    ['bank-card-russia', testCards.executeFailedNewCode],
  ] as const)('%s with %s ends FAILED at execute with PROVIDER_NEW_CODE_2027 and takes no money', async (provider, value) => {
    expect(UNLISTED_STATUS_ERROR_CODE).toBe('PROVIDER_NEW_CODE_2027');
    expect(statusErrorCodes).not.toContain(UNLISTED_STATUS_ERROR_CODE);
    const before = (await sb.get('/balance')).body.balance.value;
    const id = newId();
    expect((await sb.create(id, payloadFor(provider, value))).body.status.value).toBe('READY');
    const executed = await sb.execute(id);
    expect(executed.status).toBe(200);
    expect(executed.body.status).toMatchObject({ value: 'FAILED', errorCode: 'PROVIDER_NEW_CODE_2027', errorMessage: expect.any(String) });
    expect((await sb.get(`/payments/${id}`)).body.status.errorCode).toBe('PROVIDER_NEW_CODE_2027');
    expect(await sb.effects(id)).toMatchObject({ executions: 1, debited: '0.00' });
    expect((await sb.get('/balance')).body.balance.value).toBe(before);
  });
});

describe('state table and money', () => {
  it('takes amount + commission off the balance when a payment completes, once', async () => {
    const before = BigInt((await sb.get('/balance')).body.balance.value.replace('.', ''));
    const id = newId();
    await sb.create(id, sbpPayment('sbp_bank_id_success', '2000.00')); // commission 14.00
    expect((await sb.execute(id)).body.status.value).toBe('COMPLETED');
    expect((await sb.execute(id)).body.status.value).toBe('COMPLETED');
    const after = BigInt((await sb.get('/balance')).body.balance.value.replace('.', ''));
    expect(before - after).toBe(201_400n);
    expect(await sb.effects(id)).toMatchObject({ creates: 1, executeCalls: 2, executions: 1, debited: '2014.00' });
  });

  it('returns a final payment unchanged on execute, with its changedDateTime', async () => {
    const id = newId();
    await sb.create(id, sbpPayment('sbp_bank_id_execute_failed'));
    const first = await sb.execute(id);
    const second = await sb.execute(id);
    expect(second.body).toEqual(first.body);
  });

  it('answers execute and read of an unknown payment with 404 payout.payment.not-found', async () => {
    for (const response of [await sb.execute('missing'), await sb.get('/payments/missing')]) {
      expect(response.status).toBe(404);
      expect(response.body.errorCode).toBe('payout.payment.not-found');
    }
  });

  it('reads one payment back as it stands', async () => {
    const id = newId();
    const created = await sb.create(id, sbpPayment('sbp_bank_id_success'));
    expect((await sb.get(`/payments/${id}`)).body).toEqual(created.body);
  });
});

describe('insufficient funds and overdraft', () => {
  it('fails execute with INSUFFICIENT_FUNDS when amount + commission exceeds available, and spends the overdraft', async () => {
    const small = await startSandbox({ balance: '100.00', overdraft: '50.00' });
    try {
      await small.create('p1', sbpPayment('sbp_bank_id_success', '130.00')); // 130 + 10 commission = 140 <= 150
      expect((await small.execute('p1')).body.status.value).toBe('COMPLETED');
      expect((await small.get('/balance')).body).toMatchObject({ balance: { value: '-40.00' }, available: { value: '10.00' } });
      await small.create('p2', sbpPayment('sbp_bank_id_success', '10.00'));
      const refused = await small.execute('p2');
      expect(refused.body.status).toMatchObject({ value: 'FAILED', errorCode: 'INSUFFICIENT_FUNDS' });
      expect((await small.get('/balance')).body.balance.value).toBe('-40.00');
    } finally {
      await small.close();
    }
  });
});

describe('expiry', () => {
  it('expires a READY payment after the configured time; execute then leaves it EXPIRED', async () => {
    const quick = await startSandbox({ expiryMs: 40 });
    try {
      await quick.create('late', sbpPayment('sbp_bank_id_success'));
      await eventually(async () =>
        expect((await quick.get('/payments/late')).body.status).toMatchObject({ value: 'EXPIRED', errorCode: 'EXPIRED' }),
      );
      expect((await quick.execute('late')).body.status.value).toBe('EXPIRED');
      expect(await quick.effects('late')).toMatchObject({ executions: 0, debited: '0.00' });
    } finally {
      await quick.close();
    }
  });

  it('expires on read even when the timer has not fired (clock moved on)', async () => {
    let now = Date.parse('2026-11-01T10:00:00Z');
    const clocked = await startSandbox({ now: () => now, expiryMs: 60_000 });
    try {
      await clocked.create('p', sbpPayment('sbp_bank_id_success'));
      now += 60_000;
      expect((await clocked.get('/payments/p')).body.status.value).toBe('EXPIRED');
    } finally {
      await clocked.close();
    }
  });
});
