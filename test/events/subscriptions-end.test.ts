import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { subscribeSse } from '../support/sse.ts';
import { apiKeysEnv, apiKey } from '../support/keys.ts';

/**
 * With PGlite events stay in the process; subscriptions still end (the SSE stream closes)
 * once the payment or batch is final, after sending that final state, and a subscription
 * to something final already sends it once and ends.
 */
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({
    env: { GATEWAY_API_KEYS: apiKeysEnv({ ad: 'admin', ad2: 'admin', v: 'viewer' }) },
    sandbox: { inProgressMs: 50 },
  });
});
afterAll(() => gw.close());

/** Reads the stream to its end: resolves only when the server completes the subscription. */
async function follow(query: string, pick: (data: any) => string) {
  const sse = await subscribeSse(`${gw.gateway.url}/graphql`, { authorization: `Bearer ${apiKey('v')}` }, query, pick, () => false);
  expect(sse.statusCode).toBe(200);
  return sse;
}

describe('subscriptions end with the final state (in-process events)', () => {
  it('paymentUpdated ends after COMPLETED, and at once for a payment already final', async () => {
    const paymentId = 'ends-1';
    const created = await gw.gql(
      `mutation($input: CreatePaymentInput!) { createPayment(input: $input) { __typename } }`,
      {
        input: {
          paymentId,
          amount: '100.00',
          recipient: { sbpB2c: { account: '79001234567', bankId: 'sbp_bank_id_execute_in_progress' } },
        },
      },
      apiKey('ad'),
    );
    expect(created.body.data.createPayment.__typename).toBe('CreatePaymentSuccess');
    const sse = await follow(
      `subscription { paymentUpdated(paymentId: "${paymentId}") { trackingStatus } }`,
      (d) => d.paymentUpdated.trackingStatus,
    );
    await sse.first;
    // A second key executes what 'ad' created (PAYMENT_SECOND_PERSON_ABOVE).
    await gw.gql(`mutation { executePayment(paymentId: "${paymentId}") { __typename } }`, {}, apiKey('ad2'));
    await sse.done;
    expect(sse.values[0]).toBe('READY');
    expect(sse.values.at(-1)).toBe('COMPLETED');
    expect(sse.values.filter((v) => v === 'COMPLETED')).toHaveLength(1);

    const late = await follow(
      `subscription { paymentUpdated(paymentId: "${paymentId}") { trackingStatus } }`,
      (d) => d.paymentUpdated.trackingStatus,
    );
    await late.done;
    expect(late.values).toEqual(['COMPLETED']);
  });

  it('paymentUpdated ends after FAILED', async () => {
    const paymentId = 'ends-2';
    await gw.gql(
      `mutation($input: CreatePaymentInput!) { createPayment(input: $input) { __typename } }`,
      { input: { paymentId, amount: '100.00', recipient: { sbpB2c: { account: '79001234567', bankId: 'sbp_bank_id_execute_failed' } } } },
      apiKey('ad'),
    );
    const sse = await follow(
      `subscription { paymentUpdated(paymentId: "${paymentId}") { trackingStatus } }`,
      (d) => d.paymentUpdated.trackingStatus,
    );
    await sse.first;
    await gw.gql(`mutation { executePayment(paymentId: "${paymentId}") { __typename } }`, {}, apiKey('ad2'));
    await sse.done;
    expect(sse.values[0]).toBe('READY');
    expect(sse.values.at(-1)).toBe('FAILED');
  });
});
