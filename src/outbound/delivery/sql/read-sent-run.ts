import type { SqlQuery } from '../../../db/database.ts';

/**
 * The events first sent to a subscription with sequence numbers `from` to `from + count - 1`
 * (what one list request held), in order; an admin's resends are not sends of their own.
 */
export function sentRun(
  query: SqlQuery,
  subscriptionId: string,
  from: string,
  count: number,
): Promise<Array<{ eventId: string; sequence: string }>> {
  return query(
    `SELECT DISTINCT ON (sequence) "eventId"::text AS "eventId", sequence::text AS sequence FROM "EventDeliveryAttempt"
     WHERE "subscriptionId" = $1::uuid AND NOT resend AND sequence >= $2::bigint AND sequence < $2::bigint + $3
     ORDER BY sequence, id`,
    [subscriptionId, from, count],
  );
}
