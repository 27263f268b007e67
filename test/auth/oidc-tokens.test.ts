import { createPrivateKey } from 'node:crypto';
import { createClient as createWsClient } from 'graphql-ws';
import { createClient as createSseClient } from 'graphql-sse';
import { SignJWT } from 'jose';
import * as oidc from 'openid-client';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEV_CLIENTS,
  DEV_GATEWAY_SETTINGS,
  startDevIdentityProvider,
  type DevIdentityProvider,
} from '../../scripts/identity-provider/dev-identity-provider.ts';
import { testDatabaseKinds } from '../support/database.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { apiKey, namedApiKeysEnv } from '../support/keys.ts';

/**
 * Issue 40: services use OAuth tokens. A real OpenID Provider (oidc-provider) runs in the test;
 * a service gets a token by client credentials (openid-client, as a client team would) and pays
 * through GraphQL with it; maker-checker treats it as its own identity. Tokens that are expired,
 * tampered with, for another audience or from another issuer are refused on HTTP, SSE and WebSocket.
 */
const APPROVER = apiKey('ivan-key');
const OPERATOR = apiKey('oleg');
const ME = '{ me { identity name role via } }';

describe.each(testDatabaseKinds())('bearer tokens of the identity provider, on $name', (database) => {
  let idp: DevIdentityProvider;
  let gw: TestGateway;
  let serviceToken: string;

  beforeAll(async () => {
    idp = await startDevIdentityProvider({ gatewayUrls: [] });
    gw = await startTestGateway({
      env: {
        GATEWAY_OIDC_ISSUER: idp.issuer,
        ...DEV_GATEWAY_SETTINGS,
        GATEWAY_API_KEYS: namedApiKeysEnv({ 'ivan-key': 'approver', oleg: 'operator' }),
      },
      database,
    });
    // The service's side: discovery and client credentials, with openid-client (plain http: a provider on this machine).
    const config = await oidc.discovery(new URL(idp.issuer), DEV_CLIENTS.service.id, DEV_CLIENTS.service.secret, undefined, {
      execute: [oidc.allowInsecureRequests],
    });
    serviceToken = (await oidc.clientCredentialsGrant(config)).access_token;
  });
  afterAll(async () => {
    await gw?.close();
    await idp?.close();
  });

  /** A token signed with the provider's own key, with claims of the test's choosing. */
  const minted = (claims: Record<string, unknown>, options: { issuer?: string; audience?: string; expiresIn?: string } = {}) =>
    new SignJWT({ client_id: DEV_CLIENTS.service.id, groups: ['payroll-services'], ...claims })
      .setProtectedHeader({ alg: 'RS256', kid: idp.signingKey.kid, typ: 'at+jwt' })
      .setIssuer(options.issuer ?? idp.issuer)
      .setAudience(options.audience ?? DEV_CLIENTS.gateway.id)
      .setSubject(DEV_CLIENTS.service.id)
      .setIssuedAt()
      .setExpirationTime(options.expiresIn ?? '5m')
      .sign(createPrivateKey({ key: idp.signingKey as never, format: 'jwk' }));

  it('takes a client-credentials token: the service is its own identity, named, with the role its group maps to', async () => {
    expect(serviceToken.split('.')).toHaveLength(3);
    const me = await gw.gql(ME, {}, serviceToken);
    expect(me.body.data.me).toEqual({
      identity: `user:${DEV_CLIENTS.service.id}`,
      name: DEV_CLIENTS.service.id,
      role: 'OPERATOR',
      via: 'token',
    });
    const who = await gw.gql(`{ identities(ids: ["user:${DEV_CLIENTS.service.id}", "key:ivan-key"]) { id name kind } }`, {}, serviceToken);
    expect(who.body.data.identities).toEqual([
      { id: `user:${DEV_CLIENTS.service.id}`, name: DEV_CLIENTS.service.id, kind: 'SERVICE' },
      { id: 'key:ivan-key', name: 'ivan-key', kind: 'KEY' },
    ]);
  });

  it('pays through GraphQL with it; maker-checker keeps it from executing its own payment, and another pays it', async () => {
    const CREATE = `mutation($input: CreatePaymentInput!) { createPayment(input: $input) { __typename ... on PaymentRefusedError { code paymentId } } }`;
    const EXECUTE = `mutation($paymentId: ID!) { executePayment(paymentId: $paymentId) {
      __typename ... on ExecutePaymentSuccess { payment { paymentId status } } ... on PaymentRefusedError { code } } }`;
    const input = {
      paymentId: 'service-pays-1',
      amount: '1500.00',
      recipient: { sbpB2c: { account: '79001234567', bankId: 'sbp_bank_id_success' } },
      execute: true,
    };
    const created = await gw.gql(CREATE, { input }, serviceToken);
    expect(created.body.errors).toBeUndefined();
    expect(created.body.data.createPayment).toEqual({
      __typename: 'PaymentRefusedError',
      code: 'SECOND_PERSON_REQUIRED',
      paymentId: 'service-pays-1',
    });
    const own = await gw.gql(EXECUTE, { paymentId: 'service-pays-1' }, serviceToken);
    expect(own.body.data.executePayment).toEqual({ __typename: 'PaymentRefusedError', code: 'SECOND_PERSON_REQUIRED' });
    const other = await gw.gql(EXECUTE, { paymentId: 'service-pays-1' }, OPERATOR);
    expect(other.body.data.executePayment).toMatchObject({ __typename: 'ExecutePaymentSuccess', payment: { paymentId: 'service-pays-1' } });
  });

  const refusedTokens: Array<[string, () => Promise<string>, RegExp]> = [
    ['expired', () => minted({}, { expiresIn: '-2m' }), /expired/],
    ['for another audience', () => minted({}, { audience: 'another-api' }), /aud/],
    ['from another issuer', () => minted({}, { issuer: 'http://127.0.0.1:1/elsewhere' }), /iss/],
    [
      'tampered with (a group added after signing)',
      async () => {
        const [header, payload, signature] = (await minted({})).split('.');
        const claims = { ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), groups: ['payroll-admins'] };
        return `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
      },
      /signature/,
    ],
    ['an ID token', () => minted({ nonce: 'n-1' }), /ID token/],
  ];

  it.each(refusedTokens)('refuses a token %s on HTTP, SSE and WebSocket', async (_what, make, reason) => {
    const token = await make();
    const http = await gw.gql(ME, {}, token);
    expect(http.status).toBe(401);
    expect(http.body.errors?.[0]?.message).toMatch(reason);

    const sse = createSseClient({
      url: `${gw.gateway.url}/graphql/stream`,
      headers: { authorization: `Bearer ${token}` },
      retryAttempts: 0,
    });
    await expect(sse.iterate({ query: ME }).next()).rejects.toThrow(/401|UNAUTHENTICATED|refused/);
    sse.dispose();

    const ws = createWsClient({
      url: `${gw.gateway.url.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${token}` },
      retryAttempts: 0,
    });
    await expect(ws.iterate({ query: ME }).next()).rejects.toMatchObject({ code: 4403 });
    await ws.dispose();
  });

  it('the same token minted right is taken (the refusals above are for what was changed)', async () => {
    expect((await gw.gql(ME, {}, await minted({}))).body.data.me).toMatchObject({ role: 'OPERATOR', via: 'token' });
    expect((await gw.gql(ME, {}, APPROVER)).body.data.me).toMatchObject({ identity: 'key:ivan-key', role: 'APPROVER' });
  });
});
