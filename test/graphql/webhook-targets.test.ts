import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGraphQLServer, type GatewayYoga } from '../../src/graphql/yoga.ts';
import { createLogger } from '../../src/log/logger.ts';
import type { ResolveAll } from '../../src/payments/webhook-target.ts';
import { ApiKeys } from '../../src/auth/api-keys.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';

const CREATE = `mutation($input: CreatePaymentInput!) {
  createPayment(input: $input) {
    __typename
    ... on CreatePaymentSuccess { payment { paymentId webhookUrl } }
    ... on InputError { fieldErrors { path message } }
  }
}`;
let sequence = 0;
const input = (webhookUrl: string) => ({
  paymentId: `hook-${++sequence}`,
  amount: '100.00',
  recipient: { sbpB2c: { account: '79001234567', bankId: 'sbp_bank_id_success' } },
  webhookUrl,
});

/** Names used here resolve only through this table: the tests never touch DNS. */
const names: Record<string, string[]> = {
  'rebound.example': ['93.184.216.34', '10.1.2.3'],
  'metadata.example': ['169.254.169.254'],
  'hooks.example': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
};
const resolve: ResolveAll = async (hostname) => {
  const found = names[hostname];
  if (found === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return found.map((address) => ({ address }));
};

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw.close());

/** The gateway's own services behind a yoga whose resolver is the table above. */
function yogaWith(policy: { allowPrivate: boolean; embeddedUpstream: boolean }): GatewayYoga {
  return createGraphQLServer({
    services: gw.services(),
    keys: new ApiKeys([]),
    logger: createLogger({ level: 'silent' }),
    webhookTargets: { ...policy, resolve },
    corsOrigins: [],
    maxUploadBytes: 1024 * 1024,
  });
}

async function createThrough(yoga: GatewayYoga, webhookUrl: string) {
  const values = input(webhookUrl);
  const response = await yoga.fetch('http://gateway/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: CREATE, variables: { input: values } }),
  });
  const body = (await response.json()) as { data: { createPayment: any } };
  return { paymentId: values.paymentId, result: body.data.createPayment };
}

async function expectRefused(yoga: GatewayYoga, webhookUrl: string, message: RegExp) {
  const { paymentId, result } = await createThrough(yoga, webhookUrl);
  expect(result.__typename).toBe('InputError');
  expect(result.fieldErrors).toEqual([{ path: ['input', 'webhookUrl'], message: expect.stringMatching(message) }]);
  // Refused before anything was recorded or sent upstream.
  expect(await gw.services().tracker.find(paymentId)).toBeNull();
  expect(await gw.sb.effects(paymentId)).toMatchObject({ errorCode: 'payout.payment.not-found' });
}

describe('webhookUrl targets', () => {
  it.each([
    ['the cloud metadata service', 'http://169.254.169.254/latest'],
    ['a loopback port', 'http://127.0.0.1:6379/'],
    ['a private network', 'http://10.0.0.1/'],
  ])('refuses %s, as reported (%s)', async (_what, url) => {
    const reply = await gw.gql(CREATE, { input: input(url) });
    expect(reply.body.data.createPayment.__typename).toBe('InputError');
    expect(reply.body.data.createPayment.fieldErrors[0].path).toEqual(['input', 'webhookUrl']);
  });

  it.each([
    ['https://169.254.169.254/latest/meta-data', /metadata/],
    ['https://10.0.0.1/hook', /private/],
    ['https://172.20.1.1/hook', /private/],
    ['https://192.168.1.10/hook', /private/],
    ['https://100.64.0.1/hook', /private/],
    ['https://100.100.100.200/latest', /private/],
    ['https://127.0.0.1/hook', /loopback/],
    ['https://2130706433/hook', /127\.0\.0\.1/],
    ['https://0x7f.1/hook', /127\.0\.0\.1/],
    ['https://0.0.0.0/hook', /private/],
    ['https://localhost/hook', /loopback/],
    ['https://api.localhost/hook', /loopback/],
    ['https://[::1]/hook', /loopback/],
    ['https://[::ffff:169.254.169.254]/hook', /metadata/],
    ['https://[fd00:ec2::254]/latest', /metadata/],
    ['https://[fe80::1]/hook', /link-local/],
    ['https://rebound.example/hook', /resolves to 10\.1\.2\.3/],
    ['https://metadata.example/hook', /resolves to 169\.254\.169\.254/],
    ['https://nowhere.example/hook', /could not be resolved/],
  ])('refuses %s', async (url, message) => {
    await expectRefused(yogaWith({ allowPrivate: false, embeddedUpstream: true }), url, message);
  });

  it.each([
    ['plain http to a public address', 'http://93.184.216.34/hook', true],
    ['plain http to a public name', 'http://hooks.example/hook', true],
    ['plain http to loopback with a real upstream', 'http://127.0.0.1:8080/hook', false],
    ['another scheme', 'ftp://hooks.example/hook', true],
  ])('refuses %s', async (_what, url, embeddedUpstream) => {
    await expectRefused(yogaWith({ allowPrivate: true, embeddedUpstream }), url, /http/);
  });

  it('accepts an https target whose every address is public', async () => {
    const { result } = await createThrough(yogaWith({ allowPrivate: false, embeddedUpstream: false }), 'https://hooks.example/hook');
    expect(result.__typename).toBe('CreatePaymentSuccess');
    expect(result.payment.webhookUrl).toBe('https://hooks.example/hook');
  });

  it('accepts private and loopback targets with GATEWAY_WEBHOOK_ALLOW_PRIVATE, plain http only to loopback with the embedded sandbox', async () => {
    const yoga = yogaWith({ allowPrivate: true, embeddedUpstream: true });
    for (const url of ['http://127.0.0.1:9/nobody', 'http://localhost:9/nobody', 'https://10.0.0.1/hook', 'https://rebound.example/hook']) {
      expect((await createThrough(yoga, url)).result.__typename).toBe('CreatePaymentSuccess');
    }
    await expectRefused(yoga, 'http://10.0.0.1/hook', /https/);
  });

  it("accepts the gateway's own webhook endpoint, the default target", async () => {
    const own = `${gw.gateway.url}/webhooks/payout`;
    const reply = await gw.gql(CREATE, { input: input(own) });
    expect(reply.body.data.createPayment).toMatchObject({ __typename: 'CreatePaymentSuccess', payment: { webhookUrl: own } });
  });
});
