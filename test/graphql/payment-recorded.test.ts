import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { allCallKinds } from '../../src/sandbox/outage.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';

/**
 * Issue 29, finding 1: reads that do not need the partner do not wait for it. During a
 * refused-connection outage `payment(paymentId:)` answers from the gateway's record and
 * says so (freshness RECORDED, when the record was last written, why the live read failed);
 * with the partner up it is LIVE. A payment the gateway has no record of still needs the
 * partner: then the error stays.
 */
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ env: { PAYOUT_MAX_RETRIES: '0' }, sandbox: { inProgressMs: 50 } });
});
afterEach(() => gw.sb.sandbox.outage.clear());
afterAll(() => gw?.close());

const READ = `query($id: ID!) { payment(paymentId: $id) {
  paymentId trackingStatus amount { value currency }
  freshness { source readAt liveReadErrorCode liveReadError }
} }`;

async function pay(paymentId: string): Promise<void> {
  const reply = await gw.gql('mutation($input: CreatePaymentInput!) { createPayment(input: $input) { __typename } }', {
    input: { paymentId, amount: '12.50', recipient: { bankCardToken: { account: 'token_success' } } },
  });
  expect(reply.body.data?.createPayment.__typename).toBe('CreatePaymentSuccess');
}

describe('payment(paymentId:) and the partner', () => {
  it('reads live while the partner answers', async () => {
    await pay('fresh-1');
    const before = Date.now();
    const reply = await gw.gql(READ, { id: 'fresh-1' });
    expect(reply.body.errors).toBeUndefined();
    const { freshness } = reply.body.data.payment;
    expect(freshness).toMatchObject({ source: 'LIVE', liveReadErrorCode: null, liveReadError: null });
    expect(Date.parse(freshness.readAt)).toBeGreaterThanOrEqual(before - 1000);
  });

  it('answers from the record during a refused-connection outage, and says it is the record and why', async () => {
    await pay('recorded-1');
    const recorded = await gw.db.prisma.payment.findUniqueOrThrow({ where: { paymentId: 'recorded-1' } });
    await gw.sb.sandbox.outage.start({ mode: 'refuse', forMs: 120_000, kinds: [...allCallKinds] });

    const reply = await gw.gql(READ, { id: 'recorded-1' });
    expect(reply.body.errors).toBeUndefined();
    const payment = reply.body.data.payment;
    expect(payment).toMatchObject({
      paymentId: 'recorded-1',
      amount: { value: '12.50', currency: 'RUB' },
      trackingStatus: recorded.status,
    });
    expect(payment.freshness.source).toBe('RECORDED');
    expect(new Date(payment.freshness.readAt).getTime()).toBe(recorded.updatedAt.getTime());
    expect(payment.freshness.liveReadErrorCode).toMatch(/^network\./);
    expect(payment.freshness.liveReadError).toMatch(/Payout API/);
  });

  it('still fails for a payment the gateway has no record of', async () => {
    await gw.sb.sandbox.outage.start({ mode: 'refuse', forMs: 120_000, kinds: [...allCallKinds] });
    const reply = await gw.gql(READ, { id: 'never-seen-1' });
    expect(reply.body.data?.payment ?? null).toBeNull();
    expect(reply.body.errors?.[0]?.extensions?.code).toBe('PAYOUT_ERROR');
  });
});
