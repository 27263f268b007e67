import type { SqlQuery } from '../../../db/database.ts';
import { deliveryIsSql, deliveryStatesFrom } from '../../delivery-states.ts';
import { subscriptionIsSql, subscriptionStates } from '../../subscription-states.ts';

const [claimedFrom] = deliveryStatesFrom('claim');

/** A subscription as a deliverer holds it: where to send, and the token fencing its writes (take-window.ts reads the rest). */
export interface ClaimedSubscription {
  id: string;
  url: string;
  eventsPerRequest: number;
  leaseToken: string;
}

/**
 * One statement, as rows are claimed (graphile-worker's way): enabled subscriptions whose
 * next attempt is due and whom no live lease holds, leased on the database's clock with a
 * new token, SKIP LOCKED so deliverers never wait on each other. One deliverer per
 * subscription at a time is what keeps its events in order.
 */
const sql = `
UPDATE "EventSubscription" AS s
SET "leaseOwner" = $1, "leaseToken" = gen_random_uuid(), "leaseUntil" = now() + $2 * interval '1 millisecond'
FROM (
  SELECT id FROM "EventSubscription"
  WHERE ${subscriptionIsSql(subscriptionStates.on)} AND "nextAttemptAt" <= now() AND ${deliveryIsSql(claimedFrom!)}
  ORDER BY "nextAttemptAt"
  LIMIT $3
  FOR UPDATE SKIP LOCKED
) AS picked
WHERE s.id = picked.id
RETURNING s.id::text AS id, s.url, s."eventsPerRequest", s."leaseToken"::text AS "leaseToken"`;

export function claimSubscriptions(query: SqlQuery, owner: string, leaseMs: number, limit: number): Promise<ClaimedSubscription[]> {
  return query<ClaimedSubscription>(sql, [owner, leaseMs, limit]);
}

/**
 * When an enabled subscription's next attempt comes (a retry's backoff, a lease's end), as
 * milliseconds from now; null when none waits for a time. An idle deliverer sleeps until then,
 * unless a notice of new events wakes it first.
 */
export async function nextSubscriptionDueInMs(query: SqlQuery): Promise<number | null> {
  const [row] = await query<{ dueInMs: number | null }>(
    `SELECT (EXTRACT(EPOCH FROM (min(GREATEST("nextAttemptAt", "leaseUntil")) - now())) * 1000)::float8 AS "dueInMs"
     FROM "EventSubscription" WHERE ${subscriptionIsSql(subscriptionStates.on)} AND GREATEST("nextAttemptAt", "leaseUntil") > now()`,
    [],
  );
  return row?.dueInMs ?? null;
}
