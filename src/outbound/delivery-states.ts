/**
 * How a subscription's events are delivered (docs/decisions/0022-outbound-events.md): one
 * deliverer at a time holds its lease, fenced by a token as rows are, and sends its events
 * in (xid, seq) order; a failed head is retried with backoff and later events wait behind it.
 * WAITING: no live lease; the next claim is due at nextAttemptAt (failingSince set while
 * its head is being retried). DELIVERING: a deliverer's lease is live. Whether it is sent at
 * all is the subscription's own state (subscription-states.ts): a claim takes only ON ones.
 * The state is the lease columns; the SQL (delivery/sql/*.ts, sql/rewind-subscription.ts)
 * asks deliveryIsSql for them and releases a lease with deliveryLetGoSql.
 */
export type DeliveryState = 'WAITING' | 'DELIVERING';

export type DeliveryStep =
  /** delivery/sql/claim-subscriptions.ts: an ON subscription whose next attempt is due, leased with a new token. */
  | 'claim'
  /** delivery/sql/mark-window-delivered.ts windowDelivered: what a window delivered is written, the lease renewed. */
  | 'deliver'
  /** sql/rewind-subscription.ts rewindSubscription, or take-window.ts, mark-window-delivered.ts and fail-head.ts for one asked while leased. */
  | 'replay'
  /** delivery/sql/release-idle.ts releaseIdle: nothing left to send, or its share of a claim sent. */
  | 'release'
  /** delivery/sql/fail-head.ts headFailed: the head had no 2xx. */
  | 'retry'
  /** delivery/sql/fail-head.ts headFailed: failing for EVENT_RETRY_FOR_MS (subscription-states.ts give-up). */
  | 'give-up';

export interface DeliveryTransition {
  from: DeliveryState;
  to: DeliveryState;
  by: DeliveryStep;
  when: string;
}

// prettier-ignore
export const deliveryTransitions: readonly DeliveryTransition[] = [
  { from: 'WAITING',    to: 'DELIVERING', by: 'claim',   when: 'ON, due (nextAttemptAt), no live lease: also one whose deliverer died, whose old token is fenced out' },
  { from: 'DELIVERING', to: 'DELIVERING', by: 'deliver', when: 'events answered 2xx: the cursor moves past them, the sequence on, failingSince cleared, the lease renewed' },
  { from: 'DELIVERING', to: 'DELIVERING', by: 'replay',  when: 'a replay asked for while leased waits (rewindXid): the deliverer writes what it sent, then moves the cursor back' },
  { from: 'WAITING',    to: 'WAITING',    by: 'replay',  when: 'a replay asked for with no live lease: the cursor moves back now, the head and failing time forgotten, due now' },
  { from: 'DELIVERING', to: 'WAITING',    by: 'release', when: 'nothing to send, or EVENTS_PER_CLAIM sent: the lease is let go, looked at again after idleMs' },
  { from: 'DELIVERING', to: 'WAITING',    by: 'retry',   when: 'the head had no 2xx: tried again after the backoff (a replay asked for meanwhile is applied instead, due now)' },
  { from: 'DELIVERING', to: 'WAITING',    by: 'give-up', when: 'the head failed for EVENT_RETRY_FOR_MS: the lease is let go and the subscription turned OFF (failing)' },
];

/** The one target `by` moves a delivery to (a step with several, as replay, has none). */
export function deliveryMove(by: DeliveryStep): DeliveryState {
  const found = [...new Set(deliveryTransitions.filter((t) => t.by === by).map((t) => t.to))];
  if (found.length !== 1) throw new Error(`delivery-states.ts: ${found.length} targets by ${by}`);
  return found[0]!;
}

/** The states `by` moves a delivery from. */
export function deliveryStatesFrom(by: DeliveryStep): DeliveryState[] {
  return [...new Set(deliveryTransitions.filter((t) => t.by === by).map((t) => t.from))];
}

/** Named states the code and its SQL refer to. */
export const deliveryStates = {
  waiting: deliveryMove('release'),
  delivering: deliveryMove('claim'),
} as const satisfies Record<string, DeliveryState>;

/**
 * SQL true for a subscription (alias `s`, or none) in `state`: a live lease is a token whose
 * time has not passed. The two are each other's negation, so a claim and a replay never both
 * take a lease at its last instant for theirs.
 */
export function deliveryIsSql(state: DeliveryState, alias?: string): string {
  const column = (name: string) => (alias === undefined ? `"${name}"` : `${alias}."${name}"`);
  return state === deliveryStates.delivering
    ? `(${column('leaseToken')} IS NOT NULL AND ${column('leaseUntil')} > now())`
    : `(${column('leaseToken')} IS NULL OR ${column('leaseUntil')} IS NULL OR ${column('leaseUntil')} <= now())`;
}

/** The SET list of a move to WAITING (`by` is one of the table's): the lease let go. */
export function deliveryLetGoSql(by: DeliveryStep): string {
  if (deliveryMove(by) !== deliveryStates.waiting) throw new Error(`delivery-states.ts: ${by} does not let the lease go`);
  return `"leaseOwner" = NULL, "leaseToken" = NULL, "leaseUntil" = NULL`;
}
