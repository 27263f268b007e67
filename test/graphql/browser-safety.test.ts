import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config-error.ts';
import { loadGatewayConfig } from '../../src/config/env.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { apiKeysEnv, apiKey } from '../support/keys.ts';

const EVIL = 'https://evil.example';
const LISTED = 'https://app.example';
const BALANCE = JSON.stringify({ query: '{ balance { available { value } } }' });
const create = (paymentId: string) =>
  JSON.stringify({
    query: `mutation($input: CreatePaymentInput!) { createPayment(input: $input) { __typename } }`,
    variables: { input: { paymentId, amount: '50.00', recipient: { bankCardToken: { account: 'token_success' } } } },
  });
const json = { 'content-type': 'application/json' };
const preflight = (origin: string) => ({
  method: 'OPTIONS' as const,
  headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
});

describe('key-less local mode', () => {
  let gw: TestGateway;
  let port: string;
  beforeAll(async () => {
    gw = await startTestGateway({ env: { GATEWAY_CORS_ORIGINS: LISTED } });
    port = new URL(gw.gateway.url).port;
  });
  afterAll(() => gw.close());

  it('refuses a preflight from a foreign origin with 403 FORBIDDEN_ORIGIN and no CORS grant', async () => {
    const reply = await gw.http('/graphql', preflight(EVIL));
    expect(reply.status).toBe(403);
    expect(reply.headers['access-control-allow-origin']).toBeUndefined();
    expect(reply.headers['access-control-allow-credentials']).toBeUndefined();
    expect(JSON.parse(reply.text).errors[0].extensions.code).toBe('FORBIDDEN_ORIGIN');
  });

  it('refuses a mutation sent by a foreign page, and nothing is created', async () => {
    const reply = await gw.http('/graphql', { method: 'POST', headers: { ...json, origin: EVIL }, body: create('cors-evil-1') });
    expect(reply.status).toBe(403);
    expect(JSON.parse(reply.text).errors[0].extensions.code).toBe('FORBIDDEN_ORIGIN');
    expect(await gw.services().tracker.find('cors-evil-1')).toBeNull();
    expect(await gw.sb.effects('cors-evil-1')).toMatchObject({ errorCode: 'payout.payment.not-found' });
  });

  it('refuses a page whose origin is "null" (sandboxed frames, file://)', async () => {
    const reply = await gw.http('/graphql', { method: 'POST', headers: { ...json, origin: 'null' }, body: BALANCE });
    expect(reply.status).toBe(403);
  });

  it.each([
    ['a query', BALANCE],
    ['a mutation', create('cors-rebind-1')],
  ])('refuses %s through a rebound name with 403 FORBIDDEN_HOST', async (_what, body) => {
    const reply = await gw.http('/graphql', { method: 'POST', headers: { ...json, host: `evil.example:${port}` }, body });
    expect(reply.status).toBe(403);
    expect(JSON.parse(reply.text).errors[0].extensions.code).toBe('FORBIDDEN_HOST');
    expect(await gw.services().tracker.find('cors-rebind-1')).toBeNull();
  });

  it('refuses a loopback name on another port (a rebound name that kept the port is caught above)', async () => {
    const reply = await gw.http('/graphql', { method: 'POST', headers: { ...json, host: 'localhost:1' }, body: BALANCE });
    expect(reply.status).toBe(403);
  });

  it('refuses the batch downloads and health routes to a rebound name too', async () => {
    const reply = await gw.http('/batches/abc/results.csv', { headers: { host: 'evil.example' } });
    expect(reply.status).toBe(403);
  });

  it.each(['localhost', '127.0.0.1', '[::1]'])('serves GraphiQL and its same-origin requests at http://%s', async (name) => {
    const host = `${name}:${port}`;
    const page = await gw.http('/graphql', { headers: { host, accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/graphiql/i);
    const reply = await gw.http('/graphql', { method: 'POST', headers: { ...json, host, origin: `http://${host}` }, body: BALANCE });
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.text).data.balance.available.value).toMatch(/^\d+\.\d{2}$/);
  });

  it('serves tools that send no Origin (curl, the CLI)', async () => {
    const reply = await gw.http('/graphql', { method: 'POST', headers: json, body: BALANCE });
    expect(reply.status).toBe(200);
  });

  it('grants an origin listed in GATEWAY_CORS_ORIGINS', async () => {
    const pre = await gw.http('/graphql', preflight(LISTED));
    expect(pre.status).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe(LISTED);
    const reply = await gw.http('/graphql', { method: 'POST', headers: { ...json, origin: LISTED }, body: BALANCE });
    expect(reply.status).toBe(200);
    expect(reply.headers['access-control-allow-origin']).toBe(LISTED);
  });
});

describe('with API keys', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ env: { GATEWAY_API_KEYS: apiKeysEnv({ 'admin-key': 'admin' }), GATEWAY_CORS_ORIGINS: LISTED } });
  });
  afterAll(() => gw.close());

  it('gives an unlisted origin no CORS headers, so its pages cannot read answers', async () => {
    const pre = await gw.http('/graphql', preflight(EVIL));
    expect(pre.headers['access-control-allow-origin']).toBeUndefined();
    expect(pre.headers['access-control-allow-credentials']).toBeUndefined();
    const reply = await gw.http('/graphql', {
      method: 'POST',
      headers: { ...json, origin: EVIL, authorization: `Bearer ${apiKey('admin-key')}` },
      body: BALANCE,
    });
    expect(reply.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('grants a listed origin with the headers a browser client needs', async () => {
    const pre = await gw.http('/graphql', preflight(LISTED));
    expect(pre.headers['access-control-allow-origin']).toBe(LISTED);
    expect(pre.headers['access-control-allow-headers']).toMatch(/authorization/);
  });

  it('does not check Host: a key, not the address, is what authorizes', async () => {
    const reply = await gw.http('/graphql', {
      method: 'POST',
      headers: { ...json, host: 'payout-gateway.example.com', authorization: `Bearer ${apiKey('admin-key')}` },
      body: BALANCE,
    });
    expect(reply.status).toBe(200);
  });
});

describe('GATEWAY_CORS_ORIGINS', () => {
  it('takes comma-separated exact origins', () => {
    expect(loadGatewayConfig({ GATEWAY_CORS_ORIGINS: 'https://a.example, http://localhost:3000' }).corsOrigins).toEqual([
      'https://a.example',
      'http://localhost:3000',
    ]);
    expect(loadGatewayConfig({}).corsOrigins).toEqual([]);
  });

  it.each(['*', 'https://a.example/', 'https://a.example/app', 'a.example', 'ftp://a.example'])('names the bad entry %s', (bad) => {
    let error: unknown;
    try {
      loadGatewayConfig({ GATEWAY_CORS_ORIGINS: `https://ok.example,${bad}` });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problem = (error as ConfigError).problems.find((p) => p.variable === 'GATEWAY_CORS_ORIGINS');
    expect(problem?.message).toContain(`entry 2 "${bad}"`);
  });
});
