import { describe, expect, it } from 'vitest';
import { deliveryIsSql, deliveryMove, deliveryStates, deliveryStatesFrom } from '../../src/outbound/delivery-states.ts';
import {
  offReasonOf,
  offReasonText,
  subscriptionMove,
  subscriptionSetSql,
  subscriptionStates,
  subscriptionStatesFrom,
} from '../../src/outbound/subscription-states.ts';

describe('the subscription table', () => {
  it('has one target per step, and the reason a move to OFF records', () => {
    expect(subscriptionMove('turn-on')).toEqual({ to: subscriptionStates.on, reason: undefined });
    expect(subscriptionMove('turn-off')).toEqual({ to: subscriptionStates.off, reason: 'person' });
    expect(subscriptionMove('give-up')).toEqual({ to: subscriptionStates.off, reason: 'failing' });
    expect(subscriptionStatesFrom('give-up')).toEqual([subscriptionStates.on]);
  });

  it('says why it is off in one vocabulary, read back the same', () => {
    expect(offReasonText('failing')).toBe('failing');
    expect(offReasonText('person', 'key:events-admin')).toBe('turned off by key:events-admin');
    expect(offReasonOf(offReasonText('failing'))).toEqual({ reason: 'failing' });
    expect(offReasonOf(offReasonText('person', 'alice'))).toEqual({ reason: 'person', who: 'alice' });
    expect(offReasonOf(null)).toBeNull();
  });

  it('sets the columns of the target states in SQL', () => {
    const sql = subscriptionSetSql([{ when: 'X', then: 'keep' }], { by: 'give-up' });
    expect(sql).toContain('enabled = CASE WHEN X THEN enabled ELSE FALSE END');
    expect(sql).toContain(`"disabledReason" = CASE WHEN X THEN "disabledReason" ELSE 'failing' END`);
    expect(() => subscriptionSetSql([], { by: 'turn-off' })).toThrow(/reason/);
  });
});

describe('the delivery table', () => {
  it('claims a waiting subscription and lets the lease go on release, retry and give-up', () => {
    expect(deliveryStatesFrom('claim')).toEqual([deliveryStates.waiting]);
    expect(deliveryMove('claim')).toBe(deliveryStates.delivering);
    for (const step of ['release', 'retry', 'give-up'] as const) expect(deliveryMove(step)).toBe(deliveryStates.waiting);
    expect(() => deliveryMove('replay')).toThrow(/2 targets/);
  });

  it('says a state in SQL as each other’s negation', () => {
    expect(deliveryIsSql(deliveryStates.delivering, 's')).toBe(`(s."leaseToken" IS NOT NULL AND s."leaseUntil" > now())`);
    expect(deliveryIsSql(deliveryStates.waiting)).toBe(`("leaseToken" IS NULL OR "leaseUntil" IS NULL OR "leaseUntil" <= now())`);
  });
});
