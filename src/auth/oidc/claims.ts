import type { Role } from '../../config/api-key-entries.ts';

/** What a person or a service is to the gateway, read from a provider's claims. */
export interface ClaimedIdentity {
  /** `user:SUB`: what maker-checker, approvals and the audit trail hold. */
  identity: string;
  /** A name to show: the claims' name, username or email, else the subject. */
  name: string;
  email: string | undefined;
  /** A service's token (client credentials): no person behind it. */
  service: boolean;
  /** The role the mapping gives, or undefined: none (GATEWAY_OIDC_DEFAULT_ROLE `none`). */
  role: Role | undefined;
}

export interface RoleMapping {
  rolesClaim: string;
  roleOf: ReadonlyMap<string, Role>;
  defaultRole: Role | undefined;
}

/**
 * When one person's values map to several roles, the first of these wins. Operator and approver
 * are not ranked by power (each may do what the other may not), so the order is a choice: the
 * approver's, as approving is the narrower right and maker-checker still keeps them off their own uploads.
 */
const precedence: readonly Role[] = ['admin', 'approver', 'operator', 'viewer'];

/** A claim at a dot path (`realm_access.roles`), or undefined. */
function claimAt(claims: Record<string, unknown>, path: string): unknown {
  let value: unknown = claims;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** The values of a claim at a dot path: an array of strings, or one string. */
export function claimValues(claims: Record<string, unknown>, path: string): string[] {
  const value = claimAt(claims, path);
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

export function roleFromClaims(claims: Record<string, unknown>, mapping: RoleMapping): Role | undefined {
  const mapped = new Set(claimValues(claims, mapping.rolesClaim).flatMap((value) => mapping.roleOf.get(value) ?? []));
  return precedence.find((role) => mapped.has(role)) ?? mapping.defaultRole;
}

/** Whether the claims hold the roles claim at all (else another source, the userinfo endpoint, may). */
export function hasRolesClaim(claims: Record<string, unknown>, path: string): boolean {
  return claimAt(claims, path) !== undefined;
}

/**
 * The identity of a subject. A token with no subject, or whose subject is its own client
 * (client credentials at most providers), is a service: it is named by its client id.
 */
export function identityFromClaims(claims: Record<string, unknown>, mapping: RoleMapping): ClaimedIdentity | undefined {
  const text = (name: string) => (typeof claims[name] === 'string' && claims[name] !== '' ? (claims[name] as string) : undefined);
  const client = text('client_id') ?? text('azp');
  const sub = text('sub') ?? client;
  if (sub === undefined) return undefined;
  const service = text('sub') === undefined || (client !== undefined && sub === client);
  const email = text('email');
  return {
    identity: `user:${sub}`,
    name: (service ? client : undefined) ?? text('name') ?? text('preferred_username') ?? email ?? sub,
    email,
    service,
    role: roleFromClaims(claims, mapping),
  };
}
