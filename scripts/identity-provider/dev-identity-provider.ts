import { generateKeyPairSync } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import Provider, { type Configuration, type KoaContextWithOIDC } from 'oidc-provider';

/**
 * A real OpenID Provider (oidc-provider, the certified Node implementation) with a few payroll
 * people, for trying single sign-on on one machine (`npm run idp`) and for the tests. It is a
 * development provider: any password signs a person in. docs/operations/single-sign-on.md.
 */

export interface DevPerson {
  name: string;
  email: string;
  groups: string[];
}

/** The people of the demo company; any other login signs in as someone in no payroll group. */
export const DEV_PEOPLE: Record<string, DevPerson> = {
  olga: { name: 'Olga Petrova', email: 'olga@example.com', groups: ['payroll-clerks'] },
  ivan: { name: 'Ivan Sokolov', email: 'ivan@example.com', groups: ['payroll-approvers'] },
  anna: { name: 'Anna Volkova', email: 'anna@example.com', groups: ['payroll-approvers'] },
  alex: { name: 'Alex Morozov', email: 'alex@example.com', groups: ['payroll-admins'] },
  vera: { name: 'Vera Lebedeva', email: 'vera@example.com', groups: ['staff'] },
};

/** The gateway's client (the page's sign-in) and a service's (client credentials). */
export const DEV_CLIENTS = {
  gateway: { id: 'payout-gateway', secret: 'dev-gateway-secret' },
  service: { id: 'payroll-service', secret: 'dev-service-secret', groups: ['payroll-services'] },
} as const;

/** The settings a gateway takes to use this provider (besides GATEWAY_OIDC_ISSUER). */
export const DEV_GATEWAY_SETTINGS = {
  GATEWAY_OIDC_CLIENT_ID: DEV_CLIENTS.gateway.id,
  GATEWAY_OIDC_CLIENT_SECRET: DEV_CLIENTS.gateway.secret,
  GATEWAY_OIDC_ROLES: 'payroll-clerks=operator,payroll-approvers=approver,payroll-admins=admin,payroll-services=operator',
} as const;

/** The API's resource indicator: a token asked for it is a JWT whose audience is the gateway's client id. */
export const DEV_RESOURCE = 'urn:payout-gateway';

export interface DevIdentityProvider {
  issuer: string;
  /** The key the provider signs with, for tests that make tokens of their own (expired, other audiences). */
  signingKey: JsonWebKey & { kid: string };
  provider: Provider;
  close(): Promise<void>;
}

export interface DevIdentityProviderOptions {
  port?: number;
  host?: string;
  /** Where gateways come back to after sign-in and sign-out (their base URLs). */
  gatewayUrls: string[];
  /** Seconds an access token lives (tests shorten it to see refreshes). */
  accessTokenTtl?: number;
}

export async function startDevIdentityProvider(options: DevIdentityProviderOptions): Promise<DevIdentityProvider> {
  const host = options.host ?? '127.0.0.1';
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const signingKey = { ...(privateKey.export({ format: 'jwk' }) as JsonWebKey), kid: 'dev-1', alg: 'RS256', use: 'sig' };
  // The port is known once listening; the issuer must be known before: listen first, then mount.
  const { createServer } = await import('node:http');
  let handler: (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void = (_req, res) =>
    res.writeHead(503).end();
  const server = createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  const issuer = `http://${host === '127.0.0.1' ? '127.0.0.1' : host}:${port}`;

  const configuration: Configuration = {
    clients: [
      {
        client_id: DEV_CLIENTS.gateway.id,
        client_secret: DEV_CLIENTS.gateway.secret,
        redirect_uris: options.gatewayUrls.map((url) => `${url}/auth/callback`),
        post_logout_redirect_uris: options.gatewayUrls.map((url) => `${url}/`),
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      },
      {
        client_id: DEV_CLIENTS.service.id,
        client_secret: DEV_CLIENTS.service.secret,
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
      },
    ],
    jwks: { keys: [signingKey as never] },
    cookies: { keys: ['dev-identity-provider-only'] },
    claims: { openid: ['sub'], profile: ['name', 'preferred_username', 'groups'], email: ['email'] },
    async findAccount(_ctx, id) {
      const person = DEV_PEOPLE[id];
      return {
        accountId: id,
        async claims() {
          return { sub: id, preferred_username: id, name: person?.name ?? id, email: person?.email, groups: person?.groups ?? [] };
        },
      };
    },
    features: {
      devInteractions: { enabled: true },
      clientCredentials: { enabled: true },
      rpInitiatedLogout: { enabled: true },
      resourceIndicators: {
        enabled: true,
        // A service asks for the API without naming it; the page's sign-in gets a token for userinfo.
        defaultResource: (ctx: KoaContextWithOIDC) => (ctx.oidc.client?.clientId === DEV_CLIENTS.service.id ? DEV_RESOURCE : undefined),
        useGrantedResource: () => false,
        getResourceServerInfo: () => ({
          scope: '',
          audience: DEV_CLIENTS.gateway.id,
          accessTokenFormat: 'jwt',
          accessTokenTTL: options.accessTokenTtl ?? 600,
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
    // The service's token carries its groups, as a provider's client-credentials mapper would.
    extraTokenClaims: (_ctx, token) =>
      'clientId' in token && token.clientId === DEV_CLIENTS.service.id && !('accountId' in token && token.accountId)
        ? { groups: [...DEV_CLIENTS.service.groups] }
        : undefined,
    // The gateway is a first-party client: no consent screen, and a refresh token without offline_access.
    async loadExistingGrant(ctx) {
      const grantId = ctx.oidc.result?.consent?.grantId ?? ctx.oidc.session!.grantIdFor(ctx.oidc.client!.clientId);
      if (grantId !== undefined) return ctx.oidc.provider.Grant.find(grantId);
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client!.clientId, accountId: ctx.oidc.session!.accountId! });
      grant.addOIDCScope('openid profile email');
      await grant.save();
      return grant;
    },
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    ttl: {
      AccessToken: options.accessTokenTtl ?? 600,
      IdToken: 3600,
      RefreshToken: 86_400,
      Session: 86_400,
      Grant: 86_400,
      Interaction: 3600,
      AuthorizationCode: 60,
      ClientCredentials: options.accessTokenTtl ?? 600,
    },
    pkce: { required: () => true },
  };
  const provider = new Provider(issuer, configuration);
  const callback = provider.callback();
  handler = (req, res) => void callback(req, res);
  return {
    issuer,
    signingKey,
    provider,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// `npm run idp`: the provider on IDP_PORT (4020) for a gateway on GATEWAY_URL (http://localhost:4000).
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const gateways = (process.env.IDP_GATEWAY_URLS ?? 'http://localhost:4000,http://127.0.0.1:4000')
    .split(',')
    .map((u) => u.trim().replace(/\/+$/, ''));
  const idp = await startDevIdentityProvider({ port: Number(process.env.IDP_PORT ?? 4020), host: 'localhost', gatewayUrls: gateways });
  const settings = Object.entries({ GATEWAY_OIDC_ISSUER: idp.issuer, ...DEV_GATEWAY_SETTINGS })
    .map(([name, value]) => `${name}=${value}`)
    .join('\n');
  process.stdout.write(
    `Development identity provider at ${idp.issuer} (any password signs in).\n` +
      `People: ${Object.entries(DEV_PEOPLE)
        .map(([login, p]) => `${login} (${p.groups.join(', ')})`)
        .join(', ')}.\n` +
      `Service: ${DEV_CLIENTS.service.id} / ${DEV_CLIENTS.service.secret} (client credentials).\n` +
      `Start the gateway with:\n${settings}\n`,
  );
  const stop = () => void idp.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
