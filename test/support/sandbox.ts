import { request } from 'undici';
import { PayoutClient, type PayoutClientOptions } from '../../src/payout/client.ts';
import type { PaymentPayload } from '../../src/payout/models.ts';
import { signPayment } from '../../src/payout/signature.ts';
import type { FaultRates, FaultRule } from '../../src/sandbox/faults.ts';
import { createSandbox, type SandboxOptions } from '../../src/sandbox/server.ts';
import { namedApiKeysEnv, testPrivateKey, testPrivateKeyFile, testPublicKey } from './keys.ts';

export const AGENT = 'agent-1';
export const TOKEN = 'test-token';
export const WEBHOOK_SECRET = 'webhook-secret';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  /** The body as received; `body` is it parsed when it is JSON. */
  text: string;
}

/** A sandbox on a free loopback port, with helpers that speak raw HTTP to it. */
export async function startSandbox(options: Partial<SandboxOptions> = {}) {
  const sandbox = createSandbox({
    agentId: AGENT,
    apiToken: TOKEN,
    publicKeyPem: testPublicKey,
    webhookSecret: WEBHOOK_SECRET,
    webhookBackoffMs: 20,
    ...options,
  });
  const url = await sandbox.listen();
  const clients: PayoutClient[] = [];

  async function raw(
    method: string,
    path: string,
    init: { body?: string; headers?: Record<string, string>; token?: string | null } = {},
  ): Promise<RawResponse> {
    const headers: Record<string, string> = { ...init.headers };
    if (init.token !== null) headers.authorization = `Bearer ${init.token ?? TOKEN}`;
    const response = await request(`${url}${path}`, { method: method as 'GET', headers, body: init.body });
    const text = await response.body.text();
    // Injected proxy pages are HTML; everything else the sandbox answers is JSON.
    const isHtml = String(response.headers['content-type'] ?? '').startsWith('text/html');
    return { status: response.statusCode, headers: response.headers, body: text === '' || isHtml ? undefined : JSON.parse(text), text };
  }

  const agentPath = (rest: string, agent = AGENT) => `/partner/payout/v2/agents/${agent}${rest}`;

  return {
    sandbox,
    url,
    raw,
    agentPath,
    get: (rest: string, init?: Parameters<typeof raw>[2]) => raw('GET', agentPath(rest), init),
    /** PUT a payment signed with the test key, as a partner would. */
    create(paymentId: string, payload: PaymentPayload, init: { signature?: string; headers?: Record<string, string> } = {}) {
      const signature = init.signature ?? signPayment(testPrivateKey, AGENT, paymentId, payload);
      return raw('PUT', agentPath(`/payments/${encodeURIComponent(paymentId)}`), {
        body: JSON.stringify(payload),
        headers: { 'content-type': 'application/json', signature, ...init.headers },
      });
    },
    execute: (paymentId: string) => raw('POST', agentPath(`/payments/${encodeURIComponent(paymentId)}/execute`)),
    effects: async (paymentId: string) => (await raw('GET', `/_sandbox/payments/${encodeURIComponent(paymentId)}`)).body,
    addFault: (rule: Partial<FaultRule> & Pick<FaultRule, 'kind'>) =>
      raw('POST', '/_sandbox/faults', {
        body: JSON.stringify(rule),
        headers: { 'content-type': 'application/json' },
      }),
    /** GET /_sandbox/faults: rates, queued rules and held answers. */
    faultState: async () =>
      (await raw('GET', '/_sandbox/faults')).body as {
        rates: FaultRates;
        pending: FaultRule[];
        held: number;
        holding: Array<{ operation: string; paymentId?: string }>;
      },
    /** PUT /_sandbox/faults/rates: replaces every rate (left out means no fault). */
    setRates: (rates: Partial<FaultRates>) =>
      raw('PUT', '/_sandbox/faults/rates', {
        body: JSON.stringify(rates),
        headers: { 'content-type': 'application/json' },
      }),
    /** PATCH /_sandbox/faults/rates: changes only the rates given. */
    changeRates: (rates: Partial<Omit<FaultRates, 'rateOperations'>> & { rateOperations?: FaultRates['rateOperations'] | null }) =>
      raw('PATCH', '/_sandbox/faults/rates', { body: JSON.stringify(rates), headers: { 'content-type': 'application/json' } }),
    releaseHeld: () => raw('POST', '/_sandbox/faults/release'),
    balanceLedger: async () => (await raw('GET', '/_sandbox/balance-ledger')).body,
    allEffects: async () =>
      (await raw('GET', '/_sandbox/payments')).body.payments as Array<Record<string, unknown> & { paymentId: string }>,
    client(overrides: Partial<PayoutClientOptions> = {}) {
      const client = new PayoutClient({
        baseUrl: url,
        agentId: AGENT,
        apiToken: TOKEN,
        privateKeyPem: testPrivateKey,
        connectTimeoutMs: 1_000,
        headersTimeoutMs: 2_000,
        bodyTimeoutMs: 2_000,
        maxRetries: 3,
        backoff: { baseMs: 5, maxMs: 20 },
        ...overrides,
      });
      clients.push(client);
      return client;
    },
    async close() {
      await Promise.all(clients.map((client) => client.close()));
      await sandbox.close();
    },
  };
}

export type TestSandbox = Awaited<ReturnType<typeof startSandbox>>;

export const sbpPayment = (bankId: string, amount = '100.00', extra: Partial<PaymentPayload> = {}): PaymentPayload => ({
  amount: { value: amount, currency: 'RUB' },
  recipientDetails: { providerCode: 'sbp-b2c', fields: { account: '79001234567', bankId } },
  ...extra,
});

/** What the CLI needs to act on a standalone sandbox at PAYOUT_API_URL, as an operator key (olga). */
export function cliEnvFor(sb: TestSandbox): Record<string, string> {
  return {
    PAYOUT_API_URL: sb.url,
    PAYOUT_AGENT_ID: AGENT,
    PAYOUT_API_TOKEN: TOKEN,
    PAYOUT_PRIVATE_KEY_FILE: testPrivateKeyFile,
    PAYOUT_WEBHOOK_SECRET: WEBHOOK_SECRET,
    GATEWAY_API_KEYS: namedApiKeysEnv({ olga: 'operator' }),
  };
}
