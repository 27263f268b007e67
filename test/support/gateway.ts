import { request } from 'undici';
import { startGateway, type RunningGateway } from '../../src/app/start-gateway.ts';
import { loadGatewayConfig, type Env } from '../../src/config/env.ts';
import { createLogger, type Logger } from '../../src/log/logger.ts';
import { testDatabaseKinds, type TestDatabase, type TestDatabaseKind } from './database.ts';
import { startSandbox, WEBHOOK_SECRET, type TestSandbox } from './sandbox.ts';
import { TEST_DATA_KEY } from './card-data.ts';

export interface GraphQLReply {
  status: number;
  body: { data?: any; errors?: Array<{ message: string; extensions?: Record<string, any> }> };
}

/**
 * A gateway on a free port over a test sandbox and a fresh database: the whole
 * production composition, with the upstream and database swapped for test ones.
 */
export async function startTestGateway(
  options: {
    env?: Env;
    sandbox?: Parameters<typeof startSandbox>[0];
    database?: TestDatabaseKind;
    /** Where the gateway logs; silent unless a test reads the lines. */
    logger?: Logger;
  } = {},
) {
  const sb: TestSandbox = await startSandbox({ inProgressMs: 100, ...options.sandbox });
  const test: TestDatabase = await (options.database ?? testDatabaseKinds()[0]!).create();
  const config = loadGatewayConfig({ PORT: '0', READ_BACK_INTERVAL_MS: '100000', PAYOUT_DATA_KEY: TEST_DATA_KEY, ...options.env });
  const client = sb.client();
  let gateway: RunningGateway;
  try {
    gateway = await startGateway(config, options.logger ?? createLogger({ level: 'silent' }), {
      db: test.db,
      upstream: { client, webhookSecret: WEBHOOK_SECRET, close: async () => {} },
    });
  } catch (error) {
    await sb.close();
    await test.drop();
    throw error;
  }

  /** A GraphQL request through yoga.fetch (no socket). */
  async function gql(query: string, variables: Record<string, unknown> = {}, key?: string): Promise<GraphQLReply> {
    const response = await gateway.yoga.fetch('http://gateway/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key === undefined ? {} : { authorization: `Bearer ${key}` }) },
      body: JSON.stringify({ query, variables }),
    });
    return { status: response.status, body: (await response.json()) as GraphQLReply['body'] };
  }

  /** The same over the real port, for what needs HTTP (webhooks, SSE, the audit). */
  async function http(path: string, init: Parameters<typeof request>[1] = {}) {
    const response = await request(`${gateway.url}${path}`, init);
    const text = await response.body.text();
    return { status: response.statusCode, headers: response.headers, text };
  }

  return {
    gateway,
    sb,
    db: test.db,
    /** The database as a connection string (PostgreSQL), for a test's own second connection. */
    target: test.target,
    services: () => gateway.services,
    gql,
    http,
    async close() {
      await gateway.stop();
      await sb.close();
      await test.drop();
    },
  };
}

export type TestGateway = Awaited<ReturnType<typeof startTestGateway>>;

/** createPayment with what the input tests read back: the payment's id, or the InputError's words. */
export const CREATE_PAYMENT = `mutation Create($input: CreatePaymentInput!) {
  createPayment(input: $input) {
    __typename
    ... on CreatePaymentSuccess { payment { paymentId } }
    ... on InputError { message fieldErrors { path message } }
  }
}`;

/** The embedded sandbox's balance set or topped up through its test route, as `payout sandbox balance` does. */
export async function setSandboxBalance(gw: TestGateway, body: { set?: string; add?: string }): Promise<void> {
  const reply = await gw.sb.raw('POST', '/_sandbox/balance', {
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
  if (reply.status !== 200) throw new Error(`the sandbox refused the balance ${JSON.stringify(body)}: HTTP ${reply.status}`);
}
