/**
 * Who turns an event subscription on and off, and why (docs/decisions/0022-outbound-events.md).
 * A subscription is ON (its events are delivered, delivery-states.ts) or OFF (they wait,
 * in order, until it is on again). The state is the `enabled` column; the reason it is off
 * is `disabledReason`, in the words of offReasonText, the one vocabulary the deliverer, the
 * admin's change, GraphQL and the CLI read. A new step or state is added here first; the SQL
 * (sql/update-subscription.ts, delivery/sql/fail-head.ts) sets the columns through
 * subscriptionSetSql, from the targets of this table.
 */
export type SubscriptionState = 'ON' | 'OFF';

export type SubscriptionStep =
  /** event-subscriptions.ts create (createEventSubscription, `payout events add`). */
  | 'create'
  /** event-subscriptions.ts update with enabled: true (updateEventSubscription, `payout events enable`). */
  | 'turn-on'
  /** event-subscriptions.ts update with enabled: false: a person. */
  | 'turn-off'
  /** delivery/sql/fail-head.ts headFailed: the deliverer gives up (delivery-states.ts give-up). */
  | 'give-up';

/** Why a subscription is OFF: a person turned it off, or its head failed for EVENT_RETRY_FOR_MS. */
export type OffReason = 'person' | 'failing';

export interface SubscriptionTransition {
  /** null: the subscription is created in `to`. */
  from: SubscriptionState | null;
  to: SubscriptionState;
  by: SubscriptionStep;
  /** For a move to OFF: the reason it records. */
  reason?: OffReason;
  when: string;
}

// prettier-ignore
export const subscriptionTransitions: readonly SubscriptionTransition[] = [
  { from: null,  to: 'ON',  by: 'create',                      when: 'an admin creates it: it starts after every event already committed' },
  { from: 'OFF', to: 'ON',  by: 'turn-on',                     when: 'an admin turns it on: its head is tried now, its failing time starts over; what waited is sent in order' },
  { from: 'ON',  to: 'ON',  by: 'turn-on',                     when: 'turned on while on: as above, the head is tried now' },
  { from: 'ON',  to: 'OFF', by: 'turn-off', reason: 'person',  when: 'an admin turns it off: nothing more is sent; a window in flight stops at its next write' },
  { from: 'OFF', to: 'OFF', by: 'turn-off', reason: 'person',  when: 'turned off while off: the time and the person are the newest' },
  { from: 'ON',  to: 'OFF', by: 'give-up',  reason: 'failing', when: 'its head had no 2xx for EVENT_RETRY_FOR_MS: an event_subscription.disabled event and an audit record' },
];

/** The one target `by` moves a subscription to (and the reason it records). */
export function subscriptionMove(by: SubscriptionStep): { to: SubscriptionState; reason: OffReason | undefined } {
  const targets = [...new Set(subscriptionTransitions.filter((t) => t.by === by).map((t) => `${t.to}:${t.reason ?? ''}`))];
  if (targets.length !== 1) throw new Error(`subscription-states.ts: ${targets.length} targets by ${by}`);
  const found = subscriptionTransitions.find((t) => t.by === by)!;
  return { to: found.to, reason: found.reason };
}

/** The states `by` moves a subscription from. */
export function subscriptionStatesFrom(by: SubscriptionStep): SubscriptionState[] {
  const from = subscriptionTransitions.filter((t) => t.by === by).map((t) => t.from);
  return [...new Set(from.filter((state): state is SubscriptionState => state !== null))];
}

/** Named states the code refers to. */
export const subscriptionStates = {
  on: subscriptionMove('turn-on').to as 'ON',
  off: subscriptionMove('turn-off').to as 'OFF',
} as const satisfies Record<string, SubscriptionState>;

/** The `enabled` column of each state. */
const enabledOf: Record<SubscriptionState, boolean> = { ON: true, OFF: false };

/** SQL true for a subscription (alias `s`, or none) in `state`. */
export function subscriptionIsSql(state: SubscriptionState, alias?: string): string {
  const column = alias === undefined ? 'enabled' : `${alias}.enabled`;
  return enabledOf[state] ? column : `NOT ${column}`;
}

const PERSON_PREFIX = 'turned off by ';
const FAILING = 'failing';

/**
 * disabledReason as it is stored and shown (GraphQL EventSubscription.disabledReason, the
 * CLI, the page): `failing`, or `turned off by <who>`.
 */
export function offReasonText(reason: 'failing'): string;
export function offReasonText(reason: 'person', who: string): string;
export function offReasonText(reason: OffReason, who?: string): string {
  return reason === 'failing' ? FAILING : `${PERSON_PREFIX}${who ?? ''}`;
}

/** What a stored disabledReason says: the reason, and who for a person; null for none (or words of no reason here). */
export function offReasonOf(text: string | null): { reason: 'failing' } | { reason: 'person'; who: string } | null {
  if (text === FAILING) return { reason: 'failing' };
  if (text?.startsWith(PERSON_PREFIX) === true) return { reason: 'person', who: text.slice(PERSON_PREFIX.length) };
  return null;
}

/** A subscription's state after an arm: a step of the table, or as it was. */
export type StateArm = { by: SubscriptionStep; reasonSql?: string } | 'keep';

/**
 * The SET list that puts a subscription in the target state of the first arm whose `when`
 * holds (else `otherwise`): `enabled`, `"disabledAt"` and `"disabledReason"`, from the table's
 * targets. A move to OFF for a person records `reasonSql` (a parameter holding
 * offReasonText('person', who)); for failing, the vocabulary's word.
 */
export function subscriptionSetSql(arms: ReadonlyArray<{ when: string; then: StateArm }>, otherwise: StateArm): string {
  const value = (arm: StateArm, column: 'enabled' | '"disabledAt"' | '"disabledReason"'): string => {
    if (arm === 'keep') return column;
    const { to, reason } = subscriptionMove(arm.by);
    if (column === 'enabled') return enabledOf[to] ? 'TRUE' : 'FALSE';
    if (to === subscriptionStates.on) return 'NULL';
    if (column === '"disabledAt"') return 'now()';
    if (reason === 'failing') return `'${offReasonText('failing')}'`;
    if (arm.reasonSql === undefined) throw new Error(`subscription-states.ts: ${arm.by} needs the reason's SQL`);
    return arm.reasonSql;
  };
  const columns = ['enabled', '"disabledAt"', '"disabledReason"'] as const;
  return columns
    .map(
      (column) =>
        `${column} = CASE ${arms.map((arm) => `WHEN ${arm.when} THEN ${value(arm.then, column)}`).join(' ')} ELSE ${value(otherwise, column)} END`,
    )
    .join(',\n       ');
}
