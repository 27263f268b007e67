import type { SqlQuery } from '../../../db/database.ts';

/** The sequence number an event was first sent to a subscription with (a resend keeps it). */
export async function sentSequence(query: SqlQuery, subscriptionId: string, eventId: string): Promise<string | undefined> {
  const [row] = await query<{ sequence: string }>(
    `SELECT sequence::text AS sequence FROM "EventDeliveryAttempt" WHERE "subscriptionId" = $1::uuid AND "eventId" = $2::uuid ORDER BY id LIMIT 1`,
    [subscriptionId, eventId],
  );
  return row?.sequence;
}
