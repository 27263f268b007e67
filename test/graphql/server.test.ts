import { readFileSync } from 'node:fs';
import { auditServer } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { printedSchema } from '../../src/graphql/print-schema.ts';
import { startTestGateway, type GraphQLReply, type TestGateway } from '../support/gateway.ts';
import { subscribeSse } from '../support/sse.ts';
import { apiKeysEnv, apiKey } from '../support/keys.ts';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ env: { GATEWAY_API_KEYS: apiKeysEnv({ 'admin-key': 'admin', 'admin2-key': 'admin' }) } });
});
afterAll(() => gw.close());

const auth = { authorization: `Bearer ${apiKey('admin-key')}` };

describe('schema.graphql', () => {
  it('is the schema the code builds (run `npm run schema:print` after changing types)', () => {
    expect(readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8')).toBe(printedSchema());
  });
});

describe('GraphQL over HTTP', () => {
  it('passes every MUST of the graphql-http server audit', async () => {
    const results = await auditServer({
      url: `${gw.gateway.url}/graphql`,
      // The audit speaks plain GraphQL over HTTP; this deployment also wants a key and the CSRF header.
      fetchFn: (input: RequestInfo, init: RequestInit = {}) =>
        fetch(input, { ...init, headers: { ...Object.fromEntries(new Headers(init.headers)), ...auth, 'x-graphql-yoga-csrf': '1' } }),
    });
    const failed = results.filter((r) => r.name.startsWith('MUST') && r.status !== 'ok');
    expect(failed.map((r) => `${r.name}: ${'reason' in r ? r.reason : ''}`)).toEqual([]);
    expect(results.filter((r) => r.name.startsWith('MUST')).length).toBeGreaterThan(10);
  });

  it('refuses a GET without the CSRF header (a browser form or image could send one)', async () => {
    const query = encodeURIComponent('{ balance { available { value } } }');
    const plain = await gw.http(`/graphql?query=${query}`, { headers: { ...auth, accept: 'application/json' } });
    expect(plain.status).toBe(403);
    const withHeader = await gw.http(`/graphql?query=${query}`, {
      headers: { ...auth, accept: 'application/json', 'x-graphql-yoga-csrf': '1' },
    });
    expect(withHeader.status).toBe(200);
  });

  it('does not run mutations over GET', async () => {
    const query = encodeURIComponent('mutation { executePayment(paymentId: "x") { __typename } }');
    const response = await gw.http(`/graphql?query=${query}`, {
      headers: { ...auth, accept: 'application/json', 'x-graphql-yoga-csrf': '1' },
    });
    expect(response.status).toBe(405);
  });

  it('refuses a request body over 1 MiB with 413', async () => {
    const response = await gw.http('/graphql', {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ query: `{ balance { available { value } } } # ${'x'.repeat(1_100_000)}` }),
    });
    expect(response.status).toBe(413);
  });
});

describe('abuse limits', () => {
  it('refuses queries deeper than 8', async () => {
    const nested = `{ payments { edges { node { amount { value } history { status } } } pageInfo { hasNextPage } } }`;
    expect((await gw.gql(nested, {}, apiKey('admin-key'))).body.errors).toBeUndefined();
    // The schema has no cycles, so only a document naming fields that do not exist goes deeper.
    const tooDeep = `{ payments { edges { node { amount { value { a { b { c { d { e } } } } } } } } } }`;
    const reply = await gw.gql(tooDeep, {}, apiKey('admin-key'));
    expect(reply.body.errors?.map((e) => e.message)).toEqual([expect.stringMatching(/depth 10 while the limit is 8/)]);
  });

  it('refuses more than 15 aliases', async () => {
    const aliases = Array.from({ length: 16 }, (_, i) => `b${i}: balance { available { value } }`).join(' ');
    const reply = await gw.gql(`{ ${aliases} }`, {}, apiKey('admin-key'));
    expect(reply.body.errors?.[0]?.message).toMatch(/aliases/i);
  });

  it('does not suggest field names', async () => {
    const reply = await gw.gql('{ balanse { available { value } } }', {}, apiKey('admin-key'));
    expect(reply.body.errors?.[0]?.message).toMatch(/balanse/);
    expect(reply.body.errors?.[0]?.message).not.toMatch(/Did you mean/);
  });
});

/** What a masked error may carry: the fixed message, where it happened, and the generic code. */
function expectMasked(reply: GraphQLReply, path: string[], leaks: RegExp) {
  expect(reply.status).toBe(200);
  expect(reply.body.errors).toHaveLength(1);
  const [error] = reply.body.errors!;
  expect(error!.message).toBe('Unexpected error.');
  expect(error).toMatchObject({ path });
  expect(error!.extensions).toEqual({ code: 'INTERNAL_SERVER_ERROR', requestId: expect.any(String) });
  const text = JSON.stringify(reply.body);
  expect(text).not.toMatch(leaks);
  expect(text).not.toMatch(/stack|originalError|\bat \S+ \(|\.ts:\d+/);
}

describe('unexpected errors are masked', () => {
  it('when a resolver’s upstream call throws a plain Error carrying internal detail', async () => {
    const internal = new Error('connect ECONNREFUSED 10.20.30.40:8443 token=sk_live_123 at /srv/payout/client.ts');
    const getBalance = vi.spyOn(gw.services().client, 'getBalance').mockRejectedValueOnce(internal);
    try {
      const reply = await gw.gql('{ balance { available { value } } }', {}, apiKey('admin-key'));
      // The resolver really ran into the error: the masking below is not of a query that never ran.
      expect(getBalance).toHaveBeenCalledTimes(1);
      expectMasked(reply, ['balance'], /ECONNREFUSED|10\.20\.30\.40|sk_live_123|\/srv\/payout/);
    } finally {
      getBalance.mockRestore();
    }
  });

  it('when the database refuses a query, with its SQL error naming tables and columns', async () => {
    // A real database error, not a made-up one. (Closing PGlite under a running gateway hangs the process.)
    const findMany = vi
      .spyOn(gw.services().tracker, 'findMany')
      .mockImplementationOnce(() => gw.db.prisma.$queryRawUnsafe('SELECT card_secret FROM internal_ledger_table') as never);
    try {
      const reply = await gw.gql('{ payments { edges { node { paymentId } } } }', {}, apiKey('admin-key'));
      expect(findMany).toHaveBeenCalledTimes(1);
      await expect(gw.db.prisma.$queryRawUnsafe('SELECT card_secret FROM internal_ledger_table')).rejects.toThrow(/internal_ledger_table/);
      expectMasked(reply, ['payments'], /card_secret|internal_ledger_table|SELECT|prisma|pglite|relation/i);
    } finally {
      findMany.mockRestore();
    }
  });
});

describe('subscriptions over SSE', () => {
  it('sends the payment as it stands, then each status change', async () => {
    const paymentId = 'sse-1';
    const created = await gw.gql(
      `mutation($input: CreatePaymentInput!) { createPayment(input: $input) { __typename } }`,
      {
        input: {
          paymentId,
          amount: '100.00',
          recipient: { sbpB2c: { account: '79001234567', bankId: 'sbp_bank_id_execute_in_progress' } },
        },
      },
      apiKey('admin-key'),
    );
    expect(created.body.data.createPayment.__typename).toBe('CreatePaymentSuccess');

    const sse = await subscribeSse(
      `${gw.gateway.url}/graphql`,
      auth,
      `subscription { paymentUpdated(paymentId: "${paymentId}") { paymentId trackingStatus } }`,
      (data) => data.paymentUpdated.trackingStatus,
      (values) => values.includes('COMPLETED'),
    );
    expect(sse.statusCode).toBe(200);
    // The first event is the payment as it stands: from then on no change can be missed.
    await sse.first;
    // A second key executes what the first created (PAYMENT_SECOND_PERSON_ABOVE).
    await gw.gql(`mutation { executePayment(paymentId: "${paymentId}") { __typename } }`, {}, apiKey('admin2-key'));
    await sse.done;
    const seen = [...new Set(sse.values)];
    expect(seen).toEqual(['READY', 'IN_PROGRESS', 'COMPLETED']);
  });
});

describe('health', () => {
  it('/healthz and /readyz answer', async () => {
    expect((await gw.http('/healthz')).status).toBe(200);
    const ready = await gw.http('/readyz');
    expect(JSON.parse(ready.text)).toEqual({ status: 'ready', checks: { database: 'ok', migrations: 'ok', upstream: 'ok' } });
  });

  it('/readyz says which check fails', async () => {
    // A rate, not a counted rule: however many retries the probe makes, none is left over for later tests.
    await gw.sb.setRates({ failBeforeRate: 1, rateOperations: ['balance'] });
    try {
      const ready = await gw.http('/readyz');
      expect(ready.status).toBe(503);
      expect(JSON.parse(ready.text).checks).toMatchObject({ database: 'ok', migrations: 'ok', upstream: expect.stringMatching(/failing/) });
    } finally {
      await gw.sb.setRates({});
    }
    expect((await gw.http('/readyz')).status).toBe(200);
  });
});

describe('samples/*.graphql', () => {
  it('are valid against the schema', async () => {
    const { readdirSync } = await import('node:fs');
    const { parse, validate } = await import('graphql');
    const { schema } = await import('../../src/graphql/schema.ts');
    const dir = new URL('../../samples/', import.meta.url);
    const files = readdirSync(dir).filter((name) => name.endsWith('.graphql'));
    expect(files.length).toBeGreaterThanOrEqual(6);
    for (const file of files) {
      const errors = validate(schema, parse(readFileSync(new URL(file, dir), 'utf8')));
      expect(errors.map((e) => `${file}: ${e.message}`)).toEqual([]);
    }
  });
});
