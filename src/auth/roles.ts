import { roles, type Role } from '../config/api-key-entries.ts';

/**
 * Who may do what: the one rule table for every path that changes money or batches
 * (GraphQL's scope-auth in graphql/builder.ts and each mutation's authScopes, and the
 * `payout` CLI), so a role means the same thing wherever a key is used. The role names
 * are GATEWAY_API_KEYS's vocabulary and stay with that setting in config/.
 */
export { roles, type Role };

export type Scope = 'read' | 'pay' | 'approve' | 'admin';

/** What each role holds: operators pay and import, approvers approve, admins both and the deployment's settings. */
export function scopesOf(role: Role): Record<Scope, boolean> {
  return {
    read: true,
    pay: role === 'operator' || role === 'admin',
    approve: role === 'approver' || role === 'admin',
    /** Settings of the deployment itself: where outbound events go (event subscriptions). */
    admin: role === 'admin',
  };
}

/**
 * The actions that change money, batches or payments' recorded state, each with the
 * scopes any one of which allows it. Stopping a batch and reconciling are for either side.
 */
export const actionScopes = {
  createPayment: ['pay'],
  executePayment: ['pay'],
  importBatch: ['pay'],
  approveBatch: ['approve'],
  cancelBatch: ['pay', 'approve'],
  /** Taking a batch that paid nothing off the list (dismissBatch): housekeeping, either side may. */
  dismissBatch: ['pay', 'approve'],
  retryFailedItems: ['pay'],
  /** Stopping an approved batch for a while (pauseBatch, `payout batch pause`): either side may. */
  pauseBatch: ['pay', 'approve'],
  /** Paying an approved batch on, PAUSED or RUNNING (resumeBatch, `payout batch resume`): either side may. */
  resumeBatch: ['pay', 'approve'],
  startReconciliation: ['pay', 'approve'],
  /** Reading NEEDS_REVIEW rows' payments again (reviewBatchItems): it only settles what the partner proves. */
  reviewBatchItems: ['pay', 'approve'],
  /** A person's verdict on a row no read settles (markBatchItem): a decision about money, as approving is. */
  markBatchItem: ['approve'],
  /** Where outbound events go, their secrets and resends (event subscriptions): the deployment's, so admins only. */
  manageEventSubscriptions: ['admin'],
  /** API keys (createApiKey, revokeApiKey, apiKeys): who may act at all, so admins only. */
  manageApiKeys: ['admin'],
} as const satisfies Record<string, readonly Scope[]>;
export type Action = keyof typeof actionScopes;

/** A Pothos authScopes object for an action: any one of its scopes suffices. */
export function authScopesFor(action: Action): Partial<Record<Scope, true>> {
  return Object.fromEntries(actionScopes[action].map((scope) => [scope, true]));
}

export function mayDo(role: Role, action: Action): boolean {
  const held = scopesOf(role);
  return actionScopes[action].some((scope) => held[scope]);
}

/** Which roles may do an action, for a refusal that says what would be needed. */
export function rolesFor(action: Action): Role[] {
  return roles.filter((role) => mayDo(role, action));
}
