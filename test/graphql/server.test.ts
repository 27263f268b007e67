import { readFileSync } from 'node:fs';
import { auditServer } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { printedSchema } from '../../src/graphql/print-schema.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { subscribeSse } from '../support/sse.ts';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ env: { GATEWAY_API_KEYS: 'admin-key:admin' } });
});
afterAll(() => gw.close());

const auth = { authorization: 'Bearer admin-key' };

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
    const withHeader = await gw.http(`/graphql?query=${query}`, { headers: { ...auth, accept: 'application/json', 'x-graphql-yoga-csrf': '1' } });
    expect(withHeader.status).toBe(200);
  });

  it('does not run mutations over GET', async () => {
    const query = encodeURIComponent('mutation { executePayment(paymentId: "x") { __typename } }');
    const response = await gw.http(`/graphql?query=${query}`, { headers: { ...auth, accept: 'application/json', 'x-graphql-yoga-csrf': '1' } });
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
    expect((await gw.gql(nested, {}, 'admin-key')).body.errors).toBeUndefined();
    // The schema has no cycles, so only a document naming fields that do not exist goes deeper.
    const tooDeep = `{ payments { edges { node { amount { value { a { b { c { d { e } } } } } } } } } }`;
    const reply = await gw.gql(tooDeep, {}, 'admin-key');
    expect(reply.body.errors?.map((e) => e.message)).toContainEqual(expect.stringMatching(/depth limit of 8/i));
  });

  it('refuses more than 15 aliases', async () => {
    const aliases = Array.from({ length: 16 }, (_, i) => `b${i}: balance { available { value } }`).join(' ');
    const reply = await gw.gql(`{ ${aliases} }`, {}, 'admin-key');
    expect(reply.body.errors?.[0]?.message).toMatch(/aliases/i);
  });

  it('masks unexpected errors and does not suggest field names', async () => {
    const reply = await gw.gql('{ balanse { available { value } } }', {}, 'admin-key');
    expect(reply.body.errors?.[0]?.message).not.toMatch(/Did you mean/);
  });
});

describe('subscriptions over SSE', () => {
  it('sends the payment as it stands, then each status change', async () => {
    const paymentId = 'sse-1';
    const created = await gw.gql(
      `mutation($input: CreatePaymentInput!) { createPayment(input: $input) { __typename } }`,
      { input: { paymentId, amount: '100.00', recipient: { sbpB2c: { account: '79001234567', bankId: 'sbp_bank_id_execute_in_progress' } } } },
      'admin-key',
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
    await gw.gql(`mutation { executePayment(paymentId: "${paymentId}") { __typename } }`, {}, 'admin-key');
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
    await gw.sb.addFault({ operation: 'balance', kind: 'fail-before', times: 4 });
    const ready = await gw.http('/readyz');
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.text).checks.upstream).toMatch(/failing/);
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
