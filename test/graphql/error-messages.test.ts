import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';

/**
 * Review finding: a PayoutError carried the upstream HTTP status and messages such as
 * "PUT /payments/<id> failed with 500". What callers see names the upstream's code and its
 * own words, never a method, a path or a status.
 */
let gw: TestGateway;
beforeAll(async () => {
  // Each failure is read as it comes: the failed sends below would otherwise open the partner
  // breaker (sends counted apart from reads since issue 29) and the last create's read-back be refused.
  gw = await startTestGateway({ env: { PARTNER_BREAKER_TROUBLE_CALLS: '1000' } });
});
afterAll(() => gw.close());

const CREATE = `mutation Create($input: CreatePaymentInput!) {
  createPayment(input: $input) { __typename ... on PayoutError { code message } }
}`;
const transport = /\b(GET|PUT|POST)\b|\/payments|\/partner|\b[45]\d\d\b/;

it.each([
  ['fail-before', 'PAYOUT_INTERNAL_ERROR'],
  ['fail-before-html', 'UPSTREAM_INVALID_RESPONSE'],
  ['drop-before', 'NETWORK_ERROR'],
] as const)('a create refused by %s names no transport detail', async (kind, code) => {
  await gw.sb.addFault({ operation: 'create', kind, times: 4 });
  const input = {
    paymentId: `msg-${kind}`,
    amount: '100.00',
    recipient: { sbpB2c: { account: '79001234567', bankId: 'sbp_bank_id_success' } },
  };
  const reply = await gw.gql(CREATE, { input });
  const error = reply.body.data.createPayment;
  expect(error).toMatchObject({ __typename: 'PayoutError', code });
  expect(error.message).not.toMatch(transport);
  expect(error.message).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|ECONNRESET/);
});

it('PayoutError has no httpStatus field', async () => {
  const reply = await gw.gql('{ __type(name: "PayoutError") { fields { name } } }');
  expect(reply.body.data.__type.fields.map((f: { name: string }) => f.name)).not.toContain('httpStatus');
});
