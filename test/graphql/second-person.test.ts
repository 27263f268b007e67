import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadGatewayConfig } from '../../src/config/env.ts';
import { testWorker, textSource } from '../support/batch.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { apiKey, apiKeysEnv } from '../support/keys.ts';

/**
 * Issue 18, finding 4: money moved outside batches needs a second person too. Above
 * PAYMENT_SECOND_PERSON_ABOVE the key that executes a payment is not the key that created
 * it; failed batch rows are paid again by someone other than the uploader.
 */
const CREATE = `mutation($input: CreatePaymentInput!) { createPayment(input: $input) {
  __typename
  ... on CreatePaymentSuccess { payment { paymentId status } }
  ... on PaymentRefusedError { code message paymentId }
} }`;
const EXECUTE = `mutation($id: ID!) { executePayment(paymentId: $id) {
  __typename
  ... on ExecutePaymentSuccess { payment { paymentId status } }
  ... on PaymentRefusedError { code message paymentId }
} }`;
const RETRY = `mutation($id: ID!) { retryFailedItems(id: $id) { __typename ... on BatchError { code message } ... on RetryFailedItemsSuccess { batch { status } } } }`;

let sequence = 0;
const input = (amount: string, execute = false) => ({
  paymentId: `two-${++sequence}`,
  amount,
  recipient: { bankCardToken: { account: 'token_success' } },
  execute,
});

describe('with API keys and PAYMENT_SECOND_PERSON_ABOVE=1000.00', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({
      env: {
        GATEWAY_API_KEYS: apiKeysEnv({ 'alice-key': 'operator', 'bob-key': 'operator', 'carol-key': 'approver' }),
        PAYMENT_SECOND_PERSON_ABOVE: '1000.00',
        WORKER_IN_PROCESS: 'false',
      },
    });
  });
  afterAll(() => gw.close());
  const audit = (paymentId: string) =>
    gw.db.prisma.auditEvent.findMany({ where: { paymentId, action: 'payment.execute' }, orderBy: { id: 'asc' } });
  const creator = async (paymentId: string) => (await gw.db.prisma.payment.findUniqueOrThrow({ where: { paymentId } })).requestedBy!;

  it('refuses executePayment by the key that created a payment above the threshold, with nothing sent; another key executes it', async () => {
    const values = input('5000.00');
    expect((await gw.gql(CREATE, { input: values }, apiKey('alice-key'))).body.data.createPayment.payment.status).toBe('READY');

    const same = await gw.gql(EXECUTE, { id: values.paymentId }, apiKey('alice-key'));
    expect(same.body.data.executePayment).toMatchObject({
      __typename: 'PaymentRefusedError',
      code: 'SECOND_PERSON_REQUIRED',
      paymentId: values.paymentId,
    });
    expect(same.body.data.executePayment.message).toMatch(/key other than the one that created it/);
    expect(await gw.sb.effects(values.paymentId)).toMatchObject({ status: 'READY', executeCalls: 0 });

    const other = await gw.gql(EXECUTE, { id: values.paymentId }, apiKey('bob-key'));
    expect(other.body.data.executePayment).toMatchObject({ __typename: 'ExecutePaymentSuccess' });
    expect(await gw.sb.effects(values.paymentId)).toMatchObject({ executeCalls: 1, executions: 1 });

    const trail = await audit(values.paymentId);
    const alice = await creator(values.paymentId);
    expect(trail.map((e) => [e.actor === alice, (e.detail as Record<string, unknown>).refused])).toEqual([
      [true, 'SECOND_PERSON_REQUIRED'],
      [false, null],
    ]);
    expect(trail[1]!.detail).toMatchObject({ amount: '5000.00', currency: 'RUB', createdBy: alice });
  });

  it('lets one key create and execute a payment at or below the threshold', async () => {
    for (const amount of ['500.00', '1000.00']) {
      const values = input(amount);
      await gw.gql(CREATE, { input: values }, apiKey('alice-key'));
      expect((await gw.gql(EXECUTE, { id: values.paymentId }, apiKey('alice-key'))).body.data.executePayment.__typename).toBe(
        'ExecutePaymentSuccess',
      );
    }
  });

  it('makes a one-step create+execute above the threshold create only, and says a second person must execute', async () => {
    const values = input('2500.00', true);
    const reply = await gw.gql(CREATE, { input: values }, apiKey('alice-key'));
    expect(reply.body.data.createPayment).toMatchObject({
      __typename: 'PaymentRefusedError',
      code: 'SECOND_PERSON_REQUIRED',
      paymentId: values.paymentId,
    });
    expect(await gw.sb.effects(values.paymentId)).toMatchObject({ status: 'READY', creates: 1, executeCalls: 0 });
    expect((await gw.gql(EXECUTE, { id: values.paymentId }, apiKey('bob-key'))).body.data.executePayment.__typename).toBe(
      'ExecutePaymentSuccess',
    );
    // Below the threshold the one step still does both.
    const small = input('100.00', true);
    expect((await gw.gql(CREATE, { input: small }, apiKey('alice-key'))).body.data.createPayment.payment.status).toMatch(
      /IN_PROGRESS|COMPLETED/,
    );
  });

  it('has failed batch rows paid again only by someone other than the uploader', async () => {
    const seed = input('10.00');
    await gw.gql(CREATE, { input: seed }, apiKey('alice-key'));
    const alice = await creator(seed.paymentId);
    const s = gw.services();
    const batch = await s.importer.import({
      source: textSource('provider,amount,account\nbank-card-token,1500.00,token_execute_failed\n'),
      uploadedBy: alice,
    });
    await s.batches.approve(batch.id, { approver: 'someone-else' });
    await testWorker(gw).drain(
      async () => (await gw.db.prisma.batch.findUniqueOrThrow({ where: { id: batch.id } })).status === 'COMPLETED_WITH_FAILURES',
    );

    const same = await gw.gql(RETRY, { id: batch.id }, apiKey('alice-key'));
    expect(same.body.data.retryFailedItems).toMatchObject({ __typename: 'BatchError', code: 'SECOND_PERSON_REQUIRED' });
    expect((await gw.db.prisma.batch.findUniqueOrThrow({ where: { id: batch.id } })).status).toBe('COMPLETED_WITH_FAILURES');

    const other = await gw.gql(RETRY, { id: batch.id }, apiKey('bob-key'));
    expect(other.body.data.retryFailedItems).toMatchObject({ __typename: 'RetryFailedItemsSuccess', batch: { status: 'RUNNING' } });
    const [event] = await gw.db.prisma.auditEvent.findMany({ where: { batchId: batch.id, action: 'batch.retry' } });
    expect(event!.detail).toMatchObject({ rows: 1, uploadedBy: alice, approvedBy: 'someone-else' });
  });
});

describe('single-user mode', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ env: { PAYMENT_SECOND_PERSON_ABOVE: '1000.00' } });
  });
  afterAll(() => gw.close());

  it('is unaffected: one caller creates and executes any amount, in one step or two', async () => {
    const values = input('5000.00');
    await gw.gql(CREATE, { input: values });
    expect((await gw.gql(EXECUTE, { id: values.paymentId })).body.data.executePayment.__typename).toBe('ExecutePaymentSuccess');
    const oneStep = input('5000.00', true);
    expect((await gw.gql(CREATE, { input: oneStep })).body.data.createPayment.__typename).toBe('CreatePaymentSuccess');
    expect(await gw.sb.effects(oneStep.paymentId)).toMatchObject({ executions: 1 });
  });
});

describe('PAYMENT_SECOND_PERSON_ABOVE', () => {
  it('is 0 (every payment) by default once GATEWAY_API_KEYS is set, and off in single-user mode', () => {
    expect(loadGatewayConfig({}).paymentSecondPersonAbove).toBeNull();
    expect(loadGatewayConfig({ GATEWAY_API_KEYS: `${apiKey('k')}:admin` }).paymentSecondPersonAbove).toBe(0n);
    expect(
      loadGatewayConfig({ GATEWAY_API_KEYS: `${apiKey('k')}:admin`, PAYMENT_SECOND_PERSON_ABOVE: '50000.50' }).paymentSecondPersonAbove,
    ).toBe(5_000_050n);
    // docs/operations/configuration.md's own forms: a whole number and one decimal.
    expect(
      loadGatewayConfig({ GATEWAY_API_KEYS: `${apiKey('k')}:admin`, PAYMENT_SECOND_PERSON_ABOVE: '50000' }).paymentSecondPersonAbove,
    ).toBe(5_000_000n);
    expect(
      loadGatewayConfig({ GATEWAY_API_KEYS: `${apiKey('k')}:admin`, PAYMENT_SECOND_PERSON_ABOVE: '0.5' }).paymentSecondPersonAbove,
    ).toBe(50n);
    expect(() => loadGatewayConfig({ GATEWAY_API_KEYS: `${apiKey('k')}:admin`, PAYMENT_SECOND_PERSON_ABOVE: '1,5' })).toThrow(
      /PAYMENT_SECOND_PERSON_ABOVE/,
    );
    expect(
      loadGatewayConfig({ GATEWAY_API_KEYS: `${apiKey('k')}:admin`, GATEWAY_SINGLE_USER: 'true' }).paymentSecondPersonAbove,
    ).toBeNull();
    expect(() => loadGatewayConfig({ GATEWAY_API_KEYS: `${apiKey('k')}:admin`, PAYMENT_SECOND_PERSON_ABOVE: '1,000' })).toThrow(
      /PAYMENT_SECOND_PERSON_ABOVE/,
    );
  });
});
