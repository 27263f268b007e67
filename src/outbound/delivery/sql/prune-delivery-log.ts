import type { SqlQuery } from '../../../db/database.ts';

/** Attempts older than the retention, and events every subscription is past and older than it. */
export async function pruneDeliveryLog(query: SqlQuery, retentionMs: number): Promise<void> {
  await query(`DELETE FROM "EventDeliveryAttempt" WHERE at < now() - $1 * interval '1 millisecond'`, [retentionMs]);
  await query(
    `DELETE FROM "OutboundEvent" AS e WHERE e."occurredAt" < now() - $1 * interval '1 millisecond'
       AND NOT EXISTS (SELECT 1 FROM "EventSubscription" AS s WHERE (e.xid, e.seq) > (s."cursorXid", s."cursorSeq"))`,
    [retentionMs],
  );
}
