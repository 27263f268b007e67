import type { SqlQuery } from '../../db/database.ts';
import { deliveryIsSql, deliveryStates } from '../delivery-states.ts';
import { AFTER_CURSOR } from './after-cursor.ts';

/**
 * Every event since `since` again, in order: the cursor goes back to just before the first
 * event (in delivery order) that happened at or after it. While a deliverer holds the lease
 * the move waits for it (rewindXid): that deliverer sends the rest of its window, then writes
 * its sequence numbers as used and the cursor back, so replayed events never share a number
 * with one already sent and never arrive between its window's events. Returns how many events
 * of its types lie ahead of the new cursor, or undefined for no subscription. With no event
 * since then, a leased subscription keeps what it had: its cursor in flight is not a replay's
 * target (the window being sent would go out twice).
 */
export async function rewindSubscription(query: SqlQuery, id: string, since: Date): Promise<number | undefined> {
  // Leased: the deliverer applies the replay after its window (the replay move from DELIVERING); else it applies now.
  const leased = deliveryIsSql(deliveryStates.delivering, 's');
  const [row] = await query<{ backlog: number }>(
    `WITH first AS (
       SELECT e.xid, e.seq FROM "OutboundEvent" AS e, "EventSubscription" AS s
       WHERE s.id = $1::uuid AND e."occurredAt" >= $2 AND (cardinality(s.types) = 0 OR e.type = ANY(s.types))
       ORDER BY e.xid, e.seq LIMIT 1
     ), target AS (
       SELECT COALESCE((SELECT xid FROM first), s."cursorXid") AS xid, COALESCE((SELECT seq - 1 FROM first), s."cursorSeq") AS seq
       FROM "EventSubscription" AS s WHERE s.id = $1::uuid
     ), moved AS (
       UPDATE "EventSubscription" AS s SET
         "rewindXid" = CASE WHEN ${leased} THEN COALESCE((SELECT xid FROM first), s."rewindXid") END,
         "rewindSeq" = CASE WHEN ${leased} THEN COALESCE((SELECT seq - 1 FROM first), s."rewindSeq") END,
         "cursorXid" = CASE WHEN ${leased} THEN s."cursorXid" ELSE target.xid END,
         "cursorSeq" = CASE WHEN ${leased} THEN s."cursorSeq" ELSE target.seq END,
         "headSeq" = CASE WHEN ${leased} THEN s."headSeq" END, "headSequence" = CASE WHEN ${leased} THEN s."headSequence" END,
         "headAttempts" = CASE WHEN ${leased} THEN s."headAttempts" ELSE 0 END,
         "failingSince" = CASE WHEN ${leased} THEN s."failingSince" END,
         "nextAttemptAt" = CASE WHEN ${leased} THEN s."nextAttemptAt" ELSE now() END, "updatedAt" = now()
       FROM target WHERE s.id = $1::uuid
       RETURNING s.id, s.types, target.xid AS "cursorXid", target.seq AS "cursorSeq"
     )
     SELECT (SELECT count(*)::int FROM "OutboundEvent" AS e, moved AS s WHERE ${AFTER_CURSOR}) AS backlog FROM moved`,
    [id, since],
  );
  return row?.backlog;
}
