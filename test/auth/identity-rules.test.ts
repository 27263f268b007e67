import { describe, expect, it } from 'vitest';
import { credentialsOf } from '../../src/auth/credentials.ts';
import { identityFromClaims, roleFromClaims, type RoleMapping } from '../../src/auth/oidc/claims.ts';
import { ConfigError } from '../../src/config/config-error.ts';
import { loadGatewayConfig } from '../../src/config/env.ts';

/** Issue 40's rules that need no provider: where a session cookie counts, how claims become a role, and the settings. */
describe('the session cookie counts only where a foreign page could not have sent it', () => {
  const cookie = 'payout-session=s3cret';
  const cases: Array<[string, string, Record<string, string>, boolean]> = [
    ['GET (changes nothing)', 'GET', {}, true],
    ['a JSON POST (preflighted)', 'POST', { 'content-type': 'application/json' }, true],
    [
      'a POST with the CSRF header (preflighted)',
      'POST',
      { 'content-type': 'multipart/form-data; boundary=x', 'x-graphql-yoga-csrf': '1' },
      true,
    ],
    ['a form POST (urlencoded)', 'POST', { 'content-type': 'application/x-www-form-urlencoded' }, false],
    ['a form POST (multipart, no header)', 'POST', { 'content-type': 'multipart/form-data; boundary=x' }, false],
    ['a text/plain POST', 'POST', { 'content-type': 'text/plain' }, false],
  ];
  it.each(cases)('%s', (_what, method, headers, counts) => {
    expect(credentialsOf({ cookie, ...headers }, method).session).toBe(counts ? 's3cret' : undefined);
    // The same through a Fetch request's headers (yoga, graphql-sse).
    expect(credentialsOf(new Headers({ cookie, ...headers }), method).session).toBe(counts ? 's3cret' : undefined);
  });
  it('reads the https name too, and nothing else', () => {
    expect(credentialsOf({ cookie: 'a=1; __Host-payout-session=x; b=2' }, 'GET').session).toBe('x');
    expect(credentialsOf({ cookie: 'payout-session-old=x' }, 'GET').session).toBeUndefined();
  });
});

describe('roles from claims', () => {
  const mapping: RoleMapping = {
    rolesClaim: 'realm_access.roles',
    roleOf: new Map([
      ['clerks', 'operator'],
      ['approvers', 'approver'],
      ['admins', 'admin'],
    ]),
    defaultRole: undefined,
  };
  it('reads a dot path, an array or one string', () => {
    expect(roleFromClaims({ realm_access: { roles: ['staff', 'clerks'] } }, mapping)).toBe('operator');
    expect(roleFromClaims({ realm_access: { roles: 'approvers' } }, mapping)).toBe('approver');
    expect(roleFromClaims({ realm_access: 'approvers' }, mapping)).toBeUndefined();
  });
  it('gives admin over approver over operator when several map, and the default when none does', () => {
    expect(roleFromClaims({ realm_access: { roles: ['clerks', 'approvers'] } }, mapping)).toBe('approver');
    expect(roleFromClaims({ realm_access: { roles: ['clerks', 'admins'] } }, mapping)).toBe('admin');
    expect(roleFromClaims({ realm_access: { roles: ['staff'] } }, { ...mapping, defaultRole: 'viewer' })).toBe('viewer');
    expect(roleFromClaims({}, mapping)).toBeUndefined();
  });
  it('names a person by their claims and a service by its client id', () => {
    expect(identityFromClaims({ sub: 'f1a2', name: 'Olga P', email: 'o@x' }, mapping)).toMatchObject({
      identity: 'user:f1a2',
      name: 'Olga P',
      service: false,
    });
    expect(identityFromClaims({ sub: 'svc', client_id: 'svc' }, mapping)).toMatchObject({
      identity: 'user:svc',
      name: 'svc',
      service: true,
    });
    expect(identityFromClaims({ azp: 'svc' }, mapping)).toMatchObject({ identity: 'user:svc', service: true });
    expect(identityFromClaims({ name: 'nobody' }, mapping)).toBeUndefined();
  });
});

describe('GATEWAY_OIDC_* settings', () => {
  const problems = (env: Record<string, string>) => {
    try {
      loadGatewayConfig(env);
      return [];
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      return error.problems.map((p) => `${p.variable}: ${p.message}`);
    }
  };
  it('needs a client id with an issuer, and names each bad mapping entry by its place', () => {
    expect(problems({ GATEWAY_OIDC_ISSUER: 'https://id.example/realms/acme' })).toEqual([
      'GATEWAY_OIDC_CLIENT_ID: is required when GATEWAY_OIDC_ISSUER is set',
    ]);
    const bad = problems({
      GATEWAY_OIDC_ISSUER: 'https://id.example/realms/acme',
      GATEWAY_OIDC_CLIENT_ID: 'payout',
      GATEWAY_OIDC_ROLES: 'clerks=operator,approvers=boss,=admin',
    });
    expect(bad).toEqual([
      expect.stringMatching(/^GATEWAY_OIDC_ROLES: entry 2 \("approvers=boss"\) must look like VALUE=ROLE/),
      expect.stringMatching(/^GATEWAY_OIDC_ROLES: entry 3 \("=admin"\)/),
    ]);
  });
  it('keeps the issuer as written (some end in a slash), turns single-user off, and defaults the audience to the client id', () => {
    const config = loadGatewayConfig({ GATEWAY_OIDC_ISSUER: 'https://tenant.auth0.example/', GATEWAY_OIDC_CLIENT_ID: 'payout' });
    expect(config.identity).toMatchObject({ issuer: 'https://tenant.auth0.example/', audience: 'payout', defaultRole: undefined });
    expect(config.singleUser).toBe(false);
  });
});
