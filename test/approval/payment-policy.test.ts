import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { apiKey, namedApiKeysEnv } from '../support/keys.ts';
import { policyFile } from '../support/approval-policy.ts';

/**
 * Issue 30, part 4: single payments go through the same policy, by amount. Up to 100.00 the
 * creator executes alone; above it one other key; above 1,000.00 two other keys including an
 * admin. Each execute by another key is an approval; SECOND_PERSON_REQUIRED says what is missing.
 */
const POLICY = `{ "payment": { "approvers": 0, "byAmount": [
  { "above": "100.00", "approvers": 1 },
  { "above": "1000.00", "approvers": 2, "including": ["admin"] }
] } }`;
const CREATE = `mutation($input: CreatePaymentInput!) { createPayment(input: $input) {
  __typename ... on CreatePaymentSuccess { payment { paymentId status } } ... on PaymentRefusedError { code message paymentId }
} }`;
const EXECUTE = `mutation($id: ID!) { executePayment(paymentId: $id) {
  __typename ... on ExecutePaymentSuccess { payment { paymentId } } ... on PaymentRefusedError { code message }
} }`;

describe('single payments by policy', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({
      env: {
        GATEWAY_API_KEYS: namedApiKeysEnv({ olga: 'operator', petr: 'operator', ivan: 'operator', root: 'admin' }),
        APPROVAL_POLICY_FILE: policyFile(POLICY),
        WORKER_IN_PROCESS: 'false',
      },
    });
  });
  afterAll(() => gw.close());

  let serial = 0;
  const create = async (amount: string, execute = false) => {
    const paymentId = `pp-${++serial}`;
    const reply = await gw.gql(
      CREATE,
      { input: { paymentId, amount, recipient: { bankCardToken: { account: 'token_success' } }, execute } },
      apiKey('olga'),
    );
    return { paymentId, reply: reply.body.data.createPayment };
  };
  const execute = async (paymentId: string, who: string) =>
    (await gw.gql(EXECUTE, { id: paymentId }, apiKey(who))).body.data.executePayment;

  it('lets the creator execute alone up to the first tier, in one step too', async () => {
    expect((await create('100.00', true)).reply.__typename).toBe('CreatePaymentSuccess');
  });

  it('needs another key above it: the creator is refused with words saying how many more', async () => {
    const { paymentId, reply } = await create('500.00', true);
    expect(reply).toMatchObject({ __typename: 'PaymentRefusedError', code: 'SECOND_PERSON_REQUIRED', paymentId });
    expect(reply.message).toMatch(/500\.00 RUB\).*needs 1 key other than the one that created it.*it needs 1 more approver$/);
    expect(await execute(paymentId, 'olga')).toMatchObject({ code: 'SECOND_PERSON_REQUIRED' });
    expect(await gw.sb.effects(paymentId)).toMatchObject({ status: 'READY', executeCalls: 0 });
    expect(await execute(paymentId, 'petr')).toMatchObject({ __typename: 'ExecutePaymentSuccess' });
    expect(await gw.sb.effects(paymentId)).toMatchObject({ executeCalls: 1 });
  });

  it('above the top tier needs two other keys including an admin; approvals accumulate, each key counted once', async () => {
    const { paymentId } = await create('5000.00');
    const first = await execute(paymentId, 'petr');
    expect(first).toMatchObject({ code: 'SECOND_PERSON_REQUIRED' });
    expect(first.message).toMatch(
      /5,000\.00 RUB.*needs 2 keys other than the one that created it to execute it; 1 of 2 approvals so far: it needs 1 more approver \(admin\)$/,
    );
    expect((await execute(paymentId, 'petr')).message).toMatch(/1 of 2 approvals so far/);
    expect((await execute(paymentId, 'ivan')).message).toMatch(/2 of 2 approvals so far: it needs 1 more approver \(admin\)$/);
    expect(await gw.sb.effects(paymentId)).toMatchObject({ executeCalls: 0 });
    expect(await execute(paymentId, 'root')).toMatchObject({ __typename: 'ExecutePaymentSuccess' });
    expect(await gw.sb.effects(paymentId)).toMatchObject({ executeCalls: 1, executions: 1 });
    // Each execute is on the audit trail, the refused ones with their code.
    const trail = await gw.db.prisma.auditEvent.findMany({ where: { paymentId, action: 'payment.execute' }, orderBy: { id: 'asc' } });
    expect(trail.map((e) => [e.actor, (e.detail as Record<string, unknown>).refused])).toEqual([
      ['key:petr', 'SECOND_PERSON_REQUIRED'],
      ['key:petr', 'SECOND_PERSON_REQUIRED'],
      ['key:ivan', 'SECOND_PERSON_REQUIRED'],
      ['key:root', null],
    ]);
  });
});
