import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testCards } from '../../src/sandbox/outcomes.ts';
import { eventually } from '../support/eventually.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';

let gw: TestGateway;
beforeAll(async () => {
  // One test sends webhooks to a dead loopback port on purpose.
  gw = await startTestGateway({ env: { GATEWAY_WEBHOOK_ALLOW_PRIVATE: 'true' } });
});
afterAll(() => gw.close());

const PAYMENT_FIELDS = `
  paymentId status trackingStatus errorCode errorMessage trackingErrorCode
  amount { value currency } commission { value currency } provider
  recipient { key value } tracked history { status source errorCode }
  billingDetails { transactionId rrn } webhookUrl`;

const CREATE = `mutation Create($input: CreatePaymentInput!) {
  createPayment(input: $input) {
    __typename
    ... on CreatePaymentSuccess { payment { ${PAYMENT_FIELDS} } }
    ... on PayoutError { code upstreamCode message retryable traceId userMessage causes { parameter messages } }
    ... on InputError { message fieldErrors { path message } }
  }
}`;

const EXECUTE = `mutation Execute($paymentId: ID!) {
  executePayment(paymentId: $paymentId) {
    __typename
    ... on ExecutePaymentSuccess { payment { ${PAYMENT_FIELDS} } }
    ... on PayoutError { code message retryable }
    ... on InputError { fieldErrors { path message } }
  }
}`;

const READ = `query Read($paymentId: ID!) { payment(paymentId: $paymentId) { ${PAYMENT_FIELDS} } }`;

let sequence = 0;
const newId = () => `gql-${++sequence}`;

async function create(input: Record<string, unknown>) {
  const reply = await gw.gql(CREATE, { input });
  expect(reply.body.errors).toBeUndefined();
  return reply.body.data.createPayment;
}

const sbp = (bankId: string, extra: Record<string, unknown> = {}) => ({
  paymentId: newId(),
  amount: '100.00',
  recipient: { sbpB2c: { account: '79001234567', bankId } },
  ...extra,
});

describe('createPayment', () => {
  it('creates a READY payment, tracked from PENDING, with the gateway as webhook target', async () => {
    const input = sbp('sbp_bank_id_success');
    const result = await create(input);
    expect(result.__typename).toBe('CreatePaymentSuccess');
    expect(result.payment).toMatchObject({
      paymentId: input.paymentId,
      status: 'READY',
      trackingStatus: 'READY',
      amount: { value: '100.00', currency: 'RUB' },
      commission: { value: '10.00', currency: 'RUB' },
      provider: 'SBP_B2C',
      tracked: true,
      history: [
        { status: 'PENDING', source: 'REQUEST' },
        { status: 'READY', source: 'CREATE' },
      ],
    });
    expect(result.payment.webhookUrl).toBe(`${gw.gateway.url}/webhooks/payout`);
    expect(result.payment.recipient).toContainEqual({ key: 'account', value: '*******4567' });
    expect(await gw.sb.effects(input.paymentId)).toMatchObject({ creates: 1, executions: 0 });
  });

  it('makes a UUID paymentId when none is given', async () => {
    const { paymentId: _omit, ...input } = sbp('sbp_bank_id_success');
    const result = await create(input);
    expect(result.payment.paymentId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('never pays twice: the same paymentId again returns the same payment', async () => {
    const input = sbp('sbp_bank_id_success', { execute: true });
    const first = await create(input);
    const second = await create(input);
    expect(second.payment.paymentId).toBe(first.payment.paymentId);
    expect(second.payment.status).toBe('COMPLETED');
    expect(await gw.sb.effects(input.paymentId)).toMatchObject({ creates: 1, executions: 1 });
  });

  it('refuses a known paymentId with other details as a PayoutError conflict', async () => {
    const input = sbp('sbp_bank_id_success');
    await create(input);
    const result = await create({ ...input, amount: '200.00' });
    expect(result).toMatchObject({ __typename: 'PayoutError', code: 'PAYOUT_PAYMENT_CONFLICT', retryable: false });
    expect(result.message).toMatch(/amount/);
  });

  it('stores only the masked card number', async () => {
    const input = { paymentId: newId(), amount: '10.00', recipient: { bankCardRussia: { pan: testCards.completed } } };
    const result = await create(input);
    expect(result.payment.recipient).toContainEqual({ key: 'pan', value: '2200********0004' });
    const stored = await gw.db.prisma.payment.findUniqueOrThrow({ where: { paymentId: input.paymentId } });
    expect(JSON.stringify(stored)).not.toContain(testCards.completed);
  });
});

describe('every sandbox outcome through GraphQL', () => {
  it('COMPLETED: create and execute in one call, with billing details', async () => {
    const result = await create(sbp('sbp_bank_id_success', { execute: true }));
    expect(result.payment).toMatchObject({ status: 'COMPLETED', trackingStatus: 'COMPLETED', errorCode: null });
    expect(result.payment.billingDetails.transactionId).toEqual(expect.any(String));
  });

  it('FAILED at create: the payment exists as FAILED with its error code, and execute is not sent', async () => {
    const input = sbp('sbp_bank_id_create_failed', { execute: true });
    const result = await create(input);
    expect(result.payment).toMatchObject({ status: 'FAILED', errorCode: 'BILLING_DECLINED', errorMessage: expect.any(String) });
    expect(await gw.sb.effects(input.paymentId)).toMatchObject({ executeCalls: 0 });
  });

  it('FAILED at execute', async () => {
    const input = sbp('sbp_bank_id_execute_failed');
    await create(input);
    const reply = await gw.gql(EXECUTE, { paymentId: input.paymentId });
    expect(reply.body.data.executePayment.payment).toMatchObject({ status: 'FAILED', errorCode: 'BILLING_DECLINED' });
  });

  it('IN_PROGRESS, then COMPLETED through the webhook', async () => {
    const input = sbp('sbp_bank_id_execute_in_progress', { execute: true });
    const result = await create(input);
    expect(result.payment.status).toBe('IN_PROGRESS');
    await eventually(async () => {
      const tracked = await gw.services().tracker.find(input.paymentId);
      expect(tracked?.status).toBe('COMPLETED');
    });
    const read = await gw.gql(READ, { paymentId: input.paymentId });
    expect(read.body.data.payment.history.map((h: { source: string; status: string }) => `${h.status}:${h.source}`)).toEqual([
      'PENDING:REQUEST',
      'READY:CREATE',
      'IN_PROGRESS:EXECUTE',
      'COMPLETED:WEBHOOK',
    ]);
  });

  it('IN_PROGRESS, then FAILED through the webhook', async () => {
    const input = sbp('sbp_bank_id_execute_in_progress_failed', { execute: true });
    await create(input);
    await eventually(async () => {
      const read = await gw.gql(READ, { paymentId: input.paymentId });
      expect(read.body.data.payment).toMatchObject({ status: 'FAILED', errorCode: 'BILLING_DECLINED' });
    });
  });
});

describe('input checks before any upstream call', () => {
  it.each([
    [
      'an amount above the provider limit',
      { amount: '2000000.00' },
      ['input', 'amount'],
      /outside the sbp-b2c limits 10.00–1,000,000.00 RUB/,
    ],
    ['an amount below it', { amount: '9.99' }, ['input', 'amount'], /outside/],
    ['a zero amount', { amount: '0.00' }, ['input', 'amount'], /greater than 0.00/],
    ['a paymentId over 36 characters', { paymentId: 'p'.repeat(37) }, ['input', 'paymentId'], /36/],
    ['a webhookUrl that is not http(s)', { webhookUrl: 'ftp://x' }, ['input', 'webhookUrl'], /http/],
    [
      'a phone that fails the provider pattern',
      { recipient: { sbpB2c: { account: '+7 900', bankId: 'b' } } },
      ['input', 'recipient', 'sbpB2c', 'account'],
      /^must be a phone number in international format.*e\.g\. 7\d+$/,
    ],
  ])('refuses %s, naming the field', async (_case, change, path, message) => {
    const input = { ...sbp('sbp_bank_id_success'), ...change };
    const result = await create(input);
    expect(result.__typename).toBe('InputError');
    expect(result.fieldErrors).toContainEqual({ path, message: expect.stringMatching(message) });
    expect((await gw.sb.raw('GET', `/_sandbox/payments/${String(input.paymentId)}`)).status).toBe(404);
  });

  it('maps spec field names back to the input names', async () => {
    const input = {
      paymentId: newId(),
      amount: '10.00',
      recipient: { bankCardRussia: { pan: testCards.completed, cardholderName: 'R2-D2 #1' } },
    };
    const result = await create(input);
    expect(result.fieldErrors).toEqual([
      { path: ['input', 'recipient', 'bankCardRussia', 'cardholderName'], message: expect.stringMatching(/^must be .*e\.g\. /) },
    ]);
  });

  it('refuses more than 20 custom fields', async () => {
    const customFields = Array.from({ length: 21 }, (_, i) => ({ key: `k${i}`, value: 'v' }));
    const result = await create({ ...sbp('sbp_bank_id_success'), customFields });
    expect(result.fieldErrors[0].path).toEqual(['input', 'customFields']);
  });

  it('passes custom fields to the upstream', async () => {
    const input = sbp('sbp_bank_id_success', { customFields: [{ key: 'employee', value: 'E-7' }] });
    await create(input);
    expect((await gw.sb.get(`/payments/${input.paymentId}`)).body.customFields).toEqual({ employee: 'E-7' });
  });

  it('refuses an amount sent as a number or with the wrong decimals (Decimal scalar)', async () => {
    for (const amount of [100.5, '100.5', '1,00', '-1.00']) {
      const reply = await gw.gql(CREATE, { input: { ...sbp('sbp_bank_id_success'), amount } });
      expect(reply.body.data ?? null).toBeNull();
      expect(reply.body.errors?.[0]?.message).toMatch(/Decimal|two decimals/);
    }
  });

  it('refuses a recipient with two members (@oneOf)', async () => {
    const reply = await gw.gql(CREATE, {
      input: { ...sbp('x'), recipient: { sbpB2c: { account: '79001234567', bankId: 'b' }, bankCardToken: { account: 't' } } },
    });
    expect(reply.body.errors?.[0]?.message).toMatch(/exactly one/i);
  });
});

describe('upstream failures become typed PayoutErrors', () => {
  it('a create that fails every attempt before taking effect: PayoutError, tracked as REJECTED', async () => {
    const input = sbp('sbp_bank_id_success');
    await gw.sb.addFault({ operation: 'create', kind: 'fail-before', times: 4 });
    const result = await create(input);
    expect(result).toMatchObject({
      __typename: 'PayoutError',
      code: 'PAYOUT_INTERNAL_ERROR',
      retryable: true,
      traceId: expect.any(String),
    });
    const read = await gw.gql(READ, { paymentId: input.paymentId });
    expect(read.body.data.payment).toMatchObject({ status: null, trackingStatus: 'REJECTED', trackingErrorCode: 'PAYOUT_INTERNAL_ERROR' });
  });

  it('the same paymentId can be sent again after a refusal', async () => {
    const input = sbp('sbp_bank_id_success');
    await gw.sb.addFault({ operation: 'create', kind: 'fail-before', times: 4 });
    expect((await create(input)).__typename).toBe('PayoutError');
    const retried = await create(input);
    expect(retried.payment).toMatchObject({ status: 'READY', trackingStatus: 'READY' });
  });

  it('an execute whose answer is lost is read back, not repeated', async () => {
    const input = sbp('sbp_bank_id_success');
    await create(input);
    await gw.sb.addFault({ operation: 'execute', kind: 'fail-after' });
    const reply = await gw.gql(EXECUTE, { paymentId: input.paymentId });
    expect(reply.body.data.executePayment.payment.status).toBe('COMPLETED');
    expect(await gw.sb.effects(input.paymentId)).toMatchObject({ executeCalls: 1, executions: 1 });
  });

  it('an execute that cannot be settled is UNKNOWN, and the read-back settles it later', async () => {
    // No webhook may arrive here: it would settle the payment before the read-back does.
    const input = sbp('sbp_bank_id_success', { webhookUrl: 'http://127.0.0.1:9/nobody' }); // loopback: GATEWAY_WEBHOOK_ALLOW_PRIVATE above
    await create(input);
    await gw.sb.addFault({ operation: 'execute', kind: 'fail-after' });
    await gw.sb.addFault({ operation: 'get', kind: 'fail-before', times: 4 });
    const reply = await gw.gql(EXECUTE, { paymentId: input.paymentId });
    expect(reply.body.data.executePayment).toMatchObject({ __typename: 'PayoutError', code: 'PAYOUT_OUTCOME_UNKNOWN', retryable: false });
    expect((await gw.services().tracker.find(input.paymentId))?.status).toBe('UNKNOWN');
    await gw.services().payments.readBack(input.paymentId);
    const tracked = await gw.services().tracker.find(input.paymentId);
    expect(tracked?.status).toBe('COMPLETED');
    expect(tracked?.history.map((h) => h.source)).toEqual(['request', 'create', 'execute', 'read-back']);
    expect(await gw.sb.effects(input.paymentId)).toMatchObject({ executions: 1 });
  });

  it('executing an unknown payment is PAYOUT_PAYMENT_NOT_FOUND', async () => {
    const reply = await gw.gql(EXECUTE, { paymentId: 'never-made' });
    expect(reply.body.data.executePayment).toMatchObject({ __typename: 'PayoutError', code: 'PAYOUT_PAYMENT_NOT_FOUND' });
  });

  it('executing a final payment returns it without another call', async () => {
    const input = sbp('sbp_bank_id_success', { execute: true });
    await create(input);
    const reply = await gw.gql(EXECUTE, { paymentId: input.paymentId });
    expect(reply.body.data.executePayment.payment.status).toBe('COMPLETED');
    expect(await gw.sb.effects(input.paymentId)).toMatchObject({ executeCalls: 1 });
  });

  it('a failing query is a GraphQL error carrying the payout code, never an HTTP code or stack', async () => {
    await gw.sb.addFault({ operation: 'balance', kind: 'fail-before', times: 4 });
    const reply = await gw.gql('{ balance { available { value } } }');
    expect(reply.status).toBe(200);
    expect(reply.body.errors?.[0]).toMatchObject({
      message: 'the Payout API refused the call (payout.internal.error): internal error (injected fault)',
      extensions: {
        code: 'PAYOUT_ERROR',
        payoutErrorCode: 'PAYOUT_INTERNAL_ERROR',
        upstreamCode: 'payout.internal.error',
        retryable: true,
      },
    });
    // \b: the random traceId and requestId (UUIDs) may hold the digits 500, never as a word.
    expect(JSON.stringify(reply.body)).not.toMatch(/\b500\b|stack|at .*\.ts/);
  });
});
