import { z } from 'zod';
import { roles, type Role } from './api-key-entries.ts';
import { documented, emptyToUndefined, optionalString, positiveInt } from './zod-helpers.ts';

/**
 * The company's identity provider (issue 40): single sign-on for the page and bearer tokens for
 * services, both from one OpenID Connect issuer. One group of gatewayEnvSchema (gateway-env.ts);
 * auth/oidc/ reads the settings built from it.
 */
export interface IdentitySettings {
  issuer: string;
  clientId: string;
  clientSecret: string | undefined;
  /** What an access token's `aud` must hold. */
  audience: string;
  scopes: string;
  /** A dot path into the claims (`groups`, `realm_access.roles`). */
  rolesClaim: string;
  /** A claim value (a group, a role of the provider's) → the gateway's role. */
  roleOf: ReadonlyMap<string, Role>;
  /** The role of someone none of whose values is mapped; undefined: no access at all. */
  defaultRole: Role | undefined;
  sessionIdleMs: number;
  sessionMaxMs: number;
  /** How often a session's role is read again from the provider (a refresh). */
  sessionRefreshMs: number;
  clockToleranceSeconds: number;
}

/** `GROUP=ROLE,…`: an entry naming no known role is refused by position, never guessed. */
const roleMapping = z.preprocess(
  emptyToUndefined,
  z
    .string()
    .optional()
    .transform((raw, ctx) => {
      const mapping = new Map<string, Role>();
      for (const [index, entry] of (raw ?? '').split(',').entries()) {
        if (entry.trim() === '') continue;
        const at = entry.lastIndexOf('=');
        const value = entry.slice(0, at).trim();
        const role = entry.slice(at + 1).trim() as Role;
        if (at <= 0 || value === '' || !roles.includes(role)) {
          ctx.addIssue({
            code: 'custom',
            message: `entry ${index + 1} ("${entry.trim()}") must look like VALUE=ROLE with ROLE one of ${roles.join(', ')}`,
          });
          continue;
        }
        if (mapping.has(value)) ctx.addIssue({ code: 'custom', message: `entry ${index + 1} maps "${value}" a second time` });
        mapping.set(value, role);
      }
      return mapping;
    }),
);

export const identityVariables = {
  GATEWAY_OIDC_ISSUER: documented(
    // Kept as written: an issuer is compared exactly, and some end in a slash (Auth0's).
    z.preprocess(emptyToUndefined, z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional()),
    'unset: no single sign-on, no tokens',
    "The OpenID Connect issuer (`https://keycloak.example.com/realms/acme`), read by discovery. Set, the page offers single sign-on and GraphQL accepts the provider's JWT access tokens. Plain `http` only for a provider on this machine (`localhost`, `127.0.0.1`). See [Single sign-on](../operations/single-sign-on.md).",
  ),
  GATEWAY_OIDC_CLIENT_ID: documented(
    optionalString,
    'unset',
    'The gateway’s client id at the provider; required with `GATEWAY_OIDC_ISSUER`.',
  ),
  GATEWAY_OIDC_CLIENT_SECRET: documented(
    optionalString,
    'unset: a public client (PKCE alone)',
    'The client’s secret (a confidential client, sent by HTTP Basic). Never logged.',
  ),
  GATEWAY_OIDC_AUDIENCE: documented(
    optionalString,
    'the client id',
    "What a bearer token's `aud` must contain: the API's identifier at the provider (Keycloak: an audience mapper; Entra ID: `api://…`).",
  ),
  GATEWAY_OIDC_SCOPES: documented(
    z.preprocess(emptyToUndefined, z.string().default('openid profile email')),
    '`openid profile email`',
    'Scopes the page’s sign-in asks for; add `offline_access` where the provider gives refresh tokens only then.',
  ),
  GATEWAY_OIDC_ROLES_CLAIM: documented(
    z.preprocess(emptyToUndefined, z.string().default('groups')),
    '`groups`',
    'The claim (of the ID token, or of the access token) whose values are mapped to roles; a dot path reads into objects (`realm_access.roles`).',
  ),
  GATEWAY_OIDC_ROLES: documented(
    roleMapping,
    'unset: everyone gets `GATEWAY_OIDC_DEFAULT_ROLE`',
    '`VALUE=ROLE,…`: a value of the roles claim and the role it gives (`payroll-clerks=operator,payroll-approvers=approver,payroll-admins=admin`). Someone with several mapped values gets the role that may do most.',
  ),
  GATEWAY_OIDC_DEFAULT_ROLE: documented(
    z.preprocess(
      emptyToUndefined,
      z
        .enum(['none', ...roles], { error: `must be none or one of ${roles.join(', ')}` })
        .default('none')
        .transform((role) => (role === 'none' ? undefined : role)),
    ),
    '`none`',
    '`none`: someone whose claim maps to no role may not sign in and their tokens are refused; `viewer`: they may read.',
  ),
  GATEWAY_SESSION_IDLE_MINUTES: documented(positiveInt(30), '`30`', 'A page session unused this long ends.'),
  GATEWAY_SESSION_MAX_HOURS: documented(positiveInt(10), '`10`', 'A page session ends this long after sign-in, however active.'),
  GATEWAY_SESSION_REFRESH_MINUTES: documented(
    positiveInt(5),
    '`5`',
    "How often a session's role is read again from the provider (a refresh): a person removed from a group, or signed out at the provider, loses access within this.",
  ),
  GATEWAY_OIDC_CLOCK_TOLERANCE_SECONDS: documented(
    z.preprocess(emptyToUndefined, z.coerce.number().int().min(0).max(300).default(30)),
    '`30`',
    "Clock skew allowed when a token's `exp`, `nbf` and `iat` are checked.",
  ),
};

type Parsed = z.infer<z.ZodObject<typeof identityVariables>>;

/** The settings, or undefined without an issuer (gateway-config.ts refuses an issuer without a client id). */
export function identitySettingsOf(parsed: Parsed): IdentitySettings | undefined {
  if (parsed.GATEWAY_OIDC_ISSUER === undefined || parsed.GATEWAY_OIDC_CLIENT_ID === undefined) return undefined;
  return {
    issuer: parsed.GATEWAY_OIDC_ISSUER,
    clientId: parsed.GATEWAY_OIDC_CLIENT_ID,
    clientSecret: parsed.GATEWAY_OIDC_CLIENT_SECRET,
    audience: parsed.GATEWAY_OIDC_AUDIENCE ?? parsed.GATEWAY_OIDC_CLIENT_ID,
    scopes: parsed.GATEWAY_OIDC_SCOPES,
    rolesClaim: parsed.GATEWAY_OIDC_ROLES_CLAIM,
    roleOf: parsed.GATEWAY_OIDC_ROLES,
    defaultRole: parsed.GATEWAY_OIDC_DEFAULT_ROLE,
    sessionIdleMs: parsed.GATEWAY_SESSION_IDLE_MINUTES * 60_000,
    sessionMaxMs: parsed.GATEWAY_SESSION_MAX_HOURS * 3_600_000,
    sessionRefreshMs: parsed.GATEWAY_SESSION_REFRESH_MINUTES * 60_000,
    clockToleranceSeconds: parsed.GATEWAY_OIDC_CLOCK_TOLERANCE_SECONDS,
  };
}
