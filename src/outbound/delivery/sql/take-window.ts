import type { SqlQuery } from '../../../db/database.ts';
import { AFTER_CURSOR } from '../../sql/after-cursor.ts';
import { subscriptionIsSql, subscriptionStates } from '../../subscription-states.ts';
import type { StoredEvent } from './read-event.ts';

/** An event of a window, with where it stands in delivery order. */
export interface WindowEvent extends StoredEvent {
  xid: string;
  seq: string;
}

/** The secrets as they stand when a window is taken: a rotation signs the very next window. */
export interface Signing {
  secret: unknown;
  previousSecret: unknown;
  previousValid: boolean;
}

/** The next events of a subscription, sent one after another; the first gets `firstSequence`. */
export interface DeliveryWindow {
  events: WindowEvent[];
  firstSequence: number;
  /** The event being retried and how often it was tried: the first of the window when it failed before. */
  headSeq: string | null;
  headAttempts: number;
  signing: Signing;
}

/**
 * Up to `limit` events after the cursor, in (xid, seq) order, fenced by the lease token.
 * Only events of transactions older than every running one are taken (pg_snapshot_xmin):
 * one still running may yet commit an event that sorts before; none once an admin turned the
 * subscription off (the lease is then let go). A replay asked for while
 * the lease was held (rewindXid) is applied first. Nothing is written for what is sent: the
 * sequence numbers follow from nextSequence, so a deliverer that dies mid-window and the
 * one after it number the same events alike.
 */
export async function takeWindow(query: SqlQuery, id: string, token: string, limit: number): Promise<DeliveryWindow | undefined> {
  const [row] = await query<{ nextSequence: string; headSeq: string | null; headAttempts: number; events: string } & Signing>(
    `WITH rewound AS (
       UPDATE "EventSubscription" AS s SET "cursorXid" = s."rewindXid", "cursorSeq" = s."rewindSeq", "rewindXid" = NULL, "rewindSeq" = NULL,
         "headSeq" = NULL, "headSequence" = NULL, "headAttempts" = 0
       WHERE s.id = $1::uuid AND s."leaseToken" = $2::uuid AND s."rewindXid" IS NOT NULL
       RETURNING s.*
     ), s AS (
       SELECT * FROM rewound
       UNION ALL SELECT * FROM "EventSubscription" WHERE id = $1::uuid AND "leaseToken" = $2::uuid AND "rewindXid" IS NULL
     ), ev AS (
       SELECT e.xid, e.seq, e.id, e.type, e."occurredAt", e.data FROM "OutboundEvent" AS e, s
       WHERE ${subscriptionIsSql(subscriptionStates.on, 's')} AND ${AFTER_CURSOR} AND e.xid < (pg_snapshot_xmin(pg_current_snapshot())::text)::bigint
       ORDER BY e.xid, e.seq LIMIT $3
     )
     SELECT s."nextSequence"::text AS "nextSequence", s."headSeq"::text AS "headSeq", s."headAttempts", s.secret, s."previousSecret",
       (s."previousUntil" IS NOT NULL AND s."previousUntil" > now()) AS "previousValid",
       (SELECT COALESCE(json_agg(json_build_array(ev.xid::text, ev.seq::text, ev.id, ev.type, ev."occurredAt", ev.data) ORDER BY ev.xid, ev.seq), '[]')
        FROM ev)::text AS events
     FROM s`,
    [id, token, limit],
  );
  if (row === undefined) return undefined;
  // One JSON text for the whole window: parsing it once costs less than a row per event.
  const events = (JSON.parse(row.events) as Array<[string, string, string, string, string, Record<string, unknown>]>).map(
    ([xid, seq, eventId, type, occurredAt, data]) => ({ xid, seq, id: eventId, type, occurredAt, data }),
  );
  return {
    events,
    firstSequence: Number(row.nextSequence),
    headSeq: row.headSeq,
    headAttempts: row.headAttempts,
    signing: { secret: row.secret, previousSecret: row.previousSecret, previousValid: row.previousValid },
  };
}
