import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, GatewayProcess } from '../support/gateway-process.ts';
import { apiKey, namedApiKeysEnv } from '../support/keys.ts';

/**
 * Issue 27: with API keys and every other setting at its documented default (so
 * PAYMENT_SECOND_PERSON_ABOVE is "0", every payment), a payment's creator got "Unexpected
 * error." from createPayment(execute: true) and executePayment: the default was parsed with
 * the strict two-decimal parser on each request. The gateway runs as users start it (a real
 * process, `npm start`'s dist/main.js) with nothing but the keys, a port and a data folder.
 */
const samplesDir = new URL('../../samples/', import.meta.url);

/** A sample's operation and the variables its header comment gives (`# Variables: {…}`, one line or several). */
async function sample(file: string): Promise<{ query: string; variables: Record<string, unknown> }> {
  const text = await readFile(new URL(file, samplesDir), 'utf8');
  const comments = text
    .split('\n')
    .filter((line) => line.startsWith('#'))
    .map((line) => line.replace(/^#\s?/, ''));
  const start = comments.findIndex((line) => line.startsWith('Variables:'));
  if (start === -1) return { query: text, variables: {} };
  let json = comments[start]!.slice('Variables:'.length);
  for (let i = start + 1; ; i++) {
    // The one-line form may carry a remark after the object: the object is the first balanced {…}.
    const end = balancedEnd(json);
    if (end !== undefined) return { query: text, variables: JSON.parse(json.slice(0, end)) as Record<string, unknown> };
    if (i >= comments.length) throw new Error(`${file}: its Variables comment is not a JSON object`);
    json += `\n${comments[i]}`;
  }
}

function balancedEnd(text: string): number | undefined {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '{') depth++;
    if (text[i] === '}' && --depth === 0) return i + 1;
  }
  return undefined;
}

describe('a gateway with API keys and every other setting at its default', () => {
  let dataDir: string;
  let gateway: GatewayProcess;
  let url: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'payout-defaults-'));
    gateway = GatewayProcess.spawn('defaults', {
      PORT: String(await freePort()),
      DATA_DIR: dataDir,
      GATEWAY_API_KEYS: namedApiKeysEnv({ olga: 'operator', oleg: 'operator' }),
    });
    url = await gateway.ready;
  });
  afterAll(async () => {
    await gateway?.kill();
    await rm(dataDir, { recursive: true, force: true });
  });

  const gql = async (query: string, variables: Record<string, unknown>, key: string) => {
    const response = await request(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey(key)}` },
      body: JSON.stringify({ query, variables }),
    });
    return {
      status: response.statusCode,
      body: (await response.body.json()) as {
        data?: Record<string, any> | null;
        errors?: Array<{ message: string; extensions?: { code?: string } }>;
      },
    };
  };

  it('refuses createPayment(execute: true) by its creator with SECOND_PERSON_REQUIRED, and a second key pays it', async () => {
    const { query, variables } = await sample('create-payment.graphql');
    const input = { ...(variables.input as object), paymentId: 'defaults-create-execute' };
    const created = await gql(query, { input }, 'olga');
    expect(created.body.errors).toBeUndefined();
    expect(created.body.data!.createPayment).toMatchObject({
      __typename: 'PaymentRefusedError',
      code: 'SECOND_PERSON_REQUIRED',
      paymentId: 'defaults-create-execute',
    });

    const execute = (await sample('execute-payment.graphql')).query;
    const same = await gql(execute, { paymentId: 'defaults-create-execute' }, 'olga');
    expect(same.body.errors).toBeUndefined();
    expect(same.body.data!.executePayment).toMatchObject({
      __typename: 'PaymentRefusedError',
      code: 'SECOND_PERSON_REQUIRED',
      paymentId: 'defaults-create-execute',
    });

    const other = await gql(execute, { paymentId: 'defaults-create-execute' }, 'oleg');
    expect(other.body.data!.executePayment).toMatchObject({
      __typename: 'ExecutePaymentSuccess',
      payment: { paymentId: 'defaults-create-execute' },
    });
  });

  it('runs every sample operation of docs/api/graphql/ without an internal error', async () => {
    const files = (await readdir(samplesDir)).filter((name) => name.endsWith('.graphql') && name !== 'payment-updated.graphql').sort();
    expect(files.length).toBeGreaterThanOrEqual(7);
    // The samples name the payment docs/api/graphql/README.md creates first: create it (as olga) and have oleg execute it.
    const { query: create, variables } = await sample('create-payment.graphql');
    await gql(create, variables, 'olga');
    const answers: Record<string, unknown> = {};
    for (const file of ['execute-payment.graphql', ...files.filter((name) => name !== 'execute-payment.graphql')]) {
      const { query, variables: sampleVariables } = await sample(file);
      const reply = await gql(query, sampleVariables, 'oleg');
      answers[file] = {
        status: reply.status,
        internal: (reply.body.errors ?? []).filter((e) => e.extensions?.code === 'INTERNAL_SERVER_ERROR').map((e) => e.message),
      };
    }
    expect(answers).toEqual(Object.fromEntries(files.map((file) => [file, { status: 200, internal: [] }])));
    const paid = await gql('query($id: ID!) { payment(paymentId: $id) { status } }', { id: 'payroll-2026-11-0001' }, 'olga');
    expect(paid.body.data!.payment.status).toBe('COMPLETED');
  });
});
