import { createHash, createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataKeyFrom } from '../../src/crypto/data-keys.ts';
import { identitySecret } from '../../src/auth/api-keys.ts';
import { TEST_DATA_KEY } from '../support/card-data.ts';
import { uploadBatch } from '../support/batch-graphql.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { apiKey, namedApiKeysEnv } from '../support/keys.ts';

/**
 * Finding 8: who uploaded, approved or asked is shown to every viewer. It must name the
 * key's identity (its configured name), or a fingerprint nobody can check a guess against
 * offline, never a plain hash of the key.
 */
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({
    env: { GATEWAY_API_KEYS: `${namedApiKeysEnv({ alice: 'operator', bob: 'approver', vic: 'viewer' })},${apiKey('carol')}:admin` },
    sandbox: { inProgressMs: 50 },
  });
});
afterAll(() => gw?.close());

async function upload(key: string, csv: string): Promise<string> {
  return (await uploadBatch(gw.gateway.url, csv, { key, variables: { force: true } })).id;
}

const unsaltedPrefix = (key: string) => `key:${createHash('sha256').update(key).digest('hex').slice(0, 12)}`;

describe('key identities', () => {
  it('shows a named key by its name as uploader, approver and audit actor', async () => {
    const batchId = await upload(apiKey('alice'), 'provider,amount,account\nbank-card-token,10.00,token_success\n');
    const approved = await gw.gql(`mutation { approveBatch(id: "${batchId}") { __typename } }`, {}, apiKey('bob'));
    expect(approved.body.data.approveBatch.__typename).toBe('ApproveBatchSuccess');
    const seen = await gw.gql(`{ batch(id: "${batchId}") { uploadedBy approvedBy } }`, {}, apiKey('vic'));
    expect(seen.body.data.batch).toEqual({ uploadedBy: 'key:alice', approvedBy: 'key:bob' });
    const audit = await gw.gql(`{ auditEvents(batchId: "${batchId}") { edges { node { action actor role } } } }`, {}, apiKey('carol'));
    expect(audit.body.data.auditEvents.edges.map((e: any) => e.node)).toContainEqual({
      action: 'BATCH_APPROVE',
      actor: 'key:bob',
      role: 'APPROVER',
    });
  });

  it('gives an unnamed key a fingerprint keyed with a secret of the deployment, not a hash anyone can recompute', async () => {
    const payment = { paymentId: 'identity-1', amount: '50.00', recipient: { bankCardToken: { account: 'token_success' } } };
    const created = await gw.gql(
      'mutation($input: CreatePaymentInput!) { createPayment(input: $input) { __typename ... on CreatePaymentSuccess { payment { paymentId } } } }',
      { input: payment },
      apiKey('carol'),
    );
    expect(created.body.data.createPayment.__typename).toBe('CreatePaymentSuccess');
    const stored = await gw.db.prisma.payment.findUniqueOrThrow({ where: { paymentId: payment.paymentId } });
    expect(stored.requestedBy).toMatch(/^key:[0-9a-f]{12}$/);
    expect(stored.requestedBy).not.toBe(unsaltedPrefix(apiKey('carol')));
    // The deployment's card-data key is what it is keyed with: another deployment shows another one.
    const secret = identitySecret(dataKeyFrom(Buffer.from(TEST_DATA_KEY, 'base64')));
    expect(stored.requestedBy).toBe(`key:${createHmac('sha256', secret).update(apiKey('carol')).digest('hex').slice(0, 12)}`);
    expect(JSON.stringify(stored)).not.toContain(apiKey('carol'));
    // The page cannot compute it (it lacks the secret): the gateway says who a key is.
    const me = await gw.gql('{ me { identity role } }', {}, apiKey('carol'));
    expect(me.body.data.me).toEqual({ identity: stored.requestedBy, role: 'ADMIN' });
  });

  it('tells a named key its identity, the one maker-checker compares with uploadedBy', async () => {
    const me = await gw.gql('{ me { identity role } }', {}, apiKey('alice'));
    expect(me.body.data.me).toEqual({ identity: 'key:alice', role: 'OPERATOR' });
  });
});
