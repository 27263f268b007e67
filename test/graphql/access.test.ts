import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { apiKeysEnv, apiKey } from '../support/keys.ts';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({
    env: { GATEWAY_API_KEYS: apiKeysEnv({ 'v-key': 'viewer', 'o-key': 'operator', 'ap-key': 'approver', 'ad-key': 'admin' }) },
  });
});
afterAll(() => gw.close());

const BALANCE = '{ balance { available { value } } }';
const CREATE = `mutation($input: CreatePaymentInput!) {
  createPayment(input: $input) { __typename ... on CreatePaymentSuccess { payment { paymentId status } } ... on InputError { fieldErrors { path } } }
}`;
const EXECUTE = `mutation($id: ID!) { executePayment(paymentId: $id) { __typename } }`;
let sequence = 0;
const input = (amount = '50.00') => ({
  paymentId: `acl-${++sequence}`,
  amount,
  recipient: { bankCardToken: { account: 'token_success' } },
});

describe('API keys', () => {
  it('answers 401 UNAUTHENTICATED without a key', async () => {
    const reply = await gw.gql(BALANCE);
    expect(reply.status).toBe(401);
    expect(reply.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('answers 401 to an unknown key', async () => {
    expect((await gw.gql(BALANCE, {}, 'not-a-key')).status).toBe(401);
  });

  it('still serves GraphiQL to a browser without a key', async () => {
    const page = await gw.http('/graphql', { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/graphiql/i);
  });
});

describe.each([
  ['viewer', 'v-key', { read: true, pay: false }],
  ['operator', 'o-key', { read: true, pay: true }],
  ['approver', 'ap-key', { read: true, pay: false }],
  ['admin', 'ad-key', { read: true, pay: true }],
])('role %s', (_role, key, may) => {
  it(`${may.read ? 'may' : 'may not'} query`, async () => {
    const reply = await gw.gql(BALANCE, {}, apiKey(key));
    expect(reply.body.data?.balance?.available?.value).toMatch(/^\d+\.\d{2}$/);
  });

  it(`${may.pay ? 'may' : 'may not'} create and execute payments`, async () => {
    const values = input();
    const created = await gw.gql(CREATE, { input: values }, apiKey(key));
    // A second person executes (PAYMENT_SECOND_PERSON_ABOVE, test/graphql/second-person.test.ts).
    const executor = may.pay ? (key === 'o-key' ? 'ad-key' : 'o-key') : key;
    const executed = await gw.gql(EXECUTE, { id: values.paymentId }, apiKey(executor));
    if (may.pay) {
      expect(created.body.data.createPayment.payment.status).toBe('READY');
      expect(executed.body.data.executePayment.__typename).toBe('ExecutePaymentSuccess');
    } else {
      for (const reply of [created, executed]) {
        expect(reply.body.data ?? null).toBeNull();
        expect(reply.body.errors?.[0]?.message).toMatch(/Not authorized/);
      }
      expect((await gw.sb.raw('GET', `/_sandbox/payments/${values.paymentId}`)).status).toBe(404);
    }
  });

  it('is refused before input is checked, so a forbidden caller learns nothing from validation', async () => {
    const reply = await gw.gql(CREATE, { input: input('9999999.00') }, apiKey(key));
    if (may.pay) expect(reply.body.data.createPayment.__typename).toBe('InputError');
    else expect(reply.body.errors?.[0]?.message).toMatch(/Not authorized/);
  });
});

describe('who asked', () => {
  it('records a fingerprint of the key, never the key', async () => {
    const values = input();
    await gw.gql(CREATE, { input: values }, apiKey('o-key'));
    const stored = await gw.db.prisma.payment.findUniqueOrThrow({ where: { paymentId: values.paymentId } });
    expect(stored.requestedBy).toMatch(/^key:[0-9a-f]{12}$/);
    expect(JSON.stringify(stored)).not.toContain(apiKey('o-key'));
  });
});
