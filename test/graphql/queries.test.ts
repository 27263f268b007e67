import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderCatalogue } from '../../src/payments/provider-catalogue.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ sandbox: { balance: '5000000.00', overdraft: '1000.00' } });
  // Five payments to page through, created through the gateway.
  for (let i = 1; i <= 5; i++) {
    const reply = await gw.gql(`mutation($input: CreatePaymentInput!) { createPayment(input: $input) { __typename } }`, {
      input: { paymentId: `q-${i}`, amount: `${i}0.00`, recipient: { sbpB2c: { account: '79001234567', bankId: 'sbp_bank_id_success' } } },
    });
    expect(reply.body.data.createPayment.__typename).toBe('CreatePaymentSuccess');
  }
});
afterAll(() => gw.close());

describe('balances', () => {
  it('reads the main balance', async () => {
    const reply = await gw.gql('{ balance { balance { value currency } overdraft { value } available { value } updatedAt } }');
    expect(reply.body.data.balance).toMatchObject({
      balance: { value: '5000000.00', currency: 'RUB' },
      overdraft: { value: '1000.00' },
      available: { value: '5001000.00' },
      updatedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });
  });

  it('reads every account with its currency', async () => {
    const reply = await gw.gql('{ balances { currency balance { value } available { value } } }');
    expect(reply.body.data.balances).toEqual([{ currency: 'RUB', balance: { value: '5000000.00' }, available: { value: '5001000.00' } }]);
  });
});

describe('providers', () => {
  it('lists all six with limits, parameters and contacts', async () => {
    const reply = await gw.gql(`{ providers { code name legalName inn contacts { phoneNumber }
      limits { currency min max } parameters { name required validationPattern } } }`);
    const providers = reply.body.data.providers;
    expect(providers.map((p: { code: string }) => p.code).sort()).toEqual([
      'BANK_CARD_RUSSIA',
      'BANK_CARD_RUSSIA_FIO',
      'BANK_CARD_RUSSIA_GPH',
      'BANK_CARD_TOKEN',
      'SBP_B2C',
      'SBP_FIO',
    ]);
    const sbp = providers.find((p: { code: string }) => p.code === 'SBP_B2C');
    expect(sbp.limits).toEqual([{ currency: 'RUB', min: '10.00', max: '1000000.00' }]);
    expect(sbp.parameters).toContainEqual({ name: 'bankId', required: true, validationPattern: expect.any(String) });
  });

  it('reads one provider by its enum code', async () => {
    const reply = await gw.gql('{ provider(code: BANK_CARD_RUSSIA_GPH) { code parameters { name required } } }');
    expect(reply.body.data.provider.parameters).toContainEqual({ name: 'purpose', required: true });
  });

  it('loads all provider details once and keeps them for the TTL', async () => {
    const client = gw.services().client;
    let calls = 0;
    const counting = new Proxy(client, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver);
        if (name === 'listProviders' || name === 'getProvider') {
          return (...args: unknown[]) => {
            calls++;
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        }
        return value;
      },
    });
    let now = 0;
    const catalogue = new ProviderCatalogue(counting, 60_000, () => now);
    await Promise.all([catalogue.all(), catalogue.all(), catalogue.get('sbp-b2c')]);
    expect(calls).toBe(7); // the list, then six details
    now = 59_999;
    await catalogue.all();
    expect(calls).toBe(7);
    now = 60_000;
    await catalogue.all();
    expect(calls).toBe(14);
  });
});

describe('payments connection', () => {
  const PAGE = `query($first: Int, $after: String, $from: Date, $to: Date) {
    payments(first: $first, after: $after, from: $from, to: $to) {
      edges { cursor node { paymentId amount { value } tracked trackingStatus } }
      pageInfo { hasNextPage endCursor }
    }
  }`;

  it('pages newest first with cursors', async () => {
    const first = await gw.gql(PAGE, { first: 2 });
    const page1 = first.body.data.payments;
    expect(page1.edges.map((e: { node: { paymentId: string } }) => e.node.paymentId)).toEqual(['q-5', 'q-4']);
    expect(page1.pageInfo.hasNextPage).toBe(true);
    expect(page1.edges[0].node).toMatchObject({ tracked: true, trackingStatus: 'READY', amount: { value: '50.00' } });
    const second = await gw.gql(PAGE, { first: 2, after: page1.pageInfo.endCursor });
    expect(second.body.data.payments.edges.map((e: { node: { paymentId: string } }) => e.node.paymentId)).toEqual(['q-3', 'q-2']);
    const last = await gw.gql(PAGE, { first: 2, after: second.body.data.payments.pageInfo.endCursor });
    expect(last.body.data.payments.pageInfo.hasNextPage).toBe(false);
  });

  it('filters by dates', async () => {
    const empty = await gw.gql(PAGE, { from: '2020-01-01', to: '2020-01-31' });
    expect(empty.body.data.payments.edges).toEqual([]);
  });

  it('refuses an impossible date', async () => {
    const reply = await gw.gql(PAGE, { from: '2026-02-30' });
    expect(reply.body.errors?.[0]?.message).toMatch(/real calendar date/);
  });
});

describe('payment', () => {
  it('merges the upstream state with the gateway record', async () => {
    const reply = await gw.gql(`{ payment(paymentId: "q-3") { paymentId status trackingStatus amount { value } commission { value }
      createdAt expiresAt provider history { status source } } }`);
    expect(reply.body.data.payment).toMatchObject({
      paymentId: 'q-3',
      status: 'READY',
      trackingStatus: 'READY',
      amount: { value: '30.00' },
      commission: { value: '10.00' },
      provider: 'SBP_B2C',
      history: [
        { status: 'PENDING', source: 'REQUEST' },
        { status: 'READY', source: 'CREATE' },
      ],
    });
  });

  it('is null when neither the upstream nor the gateway knows it', async () => {
    expect((await gw.gql('{ payment(paymentId: "nobody") { paymentId } }')).body.data.payment).toBeNull();
  });
});
