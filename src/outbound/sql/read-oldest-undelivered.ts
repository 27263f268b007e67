import type { SqlQuery } from '../../db/database.ts';
import { subscriptionIsSql, subscriptionStates } from '../subscription-states.ts';
import { AFTER_CURSOR } from './after-cursor.ts';

/** For each enabled subscription, when the oldest event it has not taken happened (null: none). */
export function undeliveredBySubscription(query: SqlQuery): Promise<Array<{ id: string; oldestAt: Date | null }>> {
  return query(
    `SELECT s.id::text AS id, (SELECT min(e."occurredAt") FROM "OutboundEvent" AS e WHERE ${AFTER_CURSOR}) AS "oldestAt"
     FROM "EventSubscription" AS s WHERE ${subscriptionIsSql(subscriptionStates.on, 's')}`,
    [],
  );
}
