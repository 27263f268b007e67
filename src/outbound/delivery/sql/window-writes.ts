import type { SqlQuery } from '../../../db/database.ts';
import { deliveryLetGoSql } from '../../delivery-states.ts';
import { AFTER_CURSOR } from '../../sql/subscription-writes.ts';
import { subscriptionIsSql, subscriptionSetSql, subscriptionStates } from '../../subscription-states.ts';
import { attemptColumns, type Attempt } from './delivery-log.ts';

/** An event as a receiver's body is made from it (event-body.ts). */
export interface StoredEvent {
  id: string;
  type: string;
  occurredAt: Date | string;
  data: Record<string, unknown>;
}

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

export async function readEventById(query: SqlQuery, id: string): Promise<StoredEvent | undefined> {
  const [row] = await query<StoredEvent>(
    `SELECT e.id::text AS id, e.type, e."occurredAt", e.data FROM "OutboundEvent" AS e WHERE e.id = $1::uuid`,
    [id],
  );
  return row;
}

/**
 * What a window's write did: moved the cursor on; moved it back for a replay asked for
 * meanwhile; moved it on for a subscription an admin turned off meanwhile; or nothing (the
 * lease is another's).
 */
export type WindowWrite = 'moved' | 'rewound' | 'off' | 'fenced';

/**
 * What a window delivered so far, in one statement: the attempts logged, the cursor past the
 * last event delivered, the sequence on, the lease renewed. A replay asked for meanwhile
 * moves the cursor back instead, after the numbers used here ('rewound': the rest of the
 * window must not be sent, it comes again in the replay's order). 'off': turned off
 * meanwhile, the rest waits until it is on again. 'fenced' when the lease is no longer this
 * deliverer's.
 */
export async function windowDelivered(
  query: SqlQuery,
  id: string,
  token: string,
  leaseMs: number,
  through: { xid: string; seq: string; nextSequence: number },
  attempts: readonly Attempt[],
): Promise<WindowWrite> {
  const [row] = await query<{ rewound: boolean; enabled: boolean }>(
    `WITH cur AS (
       SELECT s.id, s."rewindXid" IS NOT NULL AS rewound, s.enabled FROM "EventSubscription" AS s WHERE s.id = $1::uuid AND s."leaseToken" = $2::uuid FOR UPDATE
     ), logged AS (
       INSERT INTO "EventDeliveryAttempt" ("subscriptionId", "eventId", "eventType", sequence, attempt, outcome, "statusCode", "durationMs", excerpt, resend)
       SELECT cur.id, a."eventId", a."eventType", a.sequence, a.attempt, a.outcome, a."statusCode", a."durationMs", a.excerpt, false
       FROM cur, unnest($7::uuid[], $8::text[], $9::bigint[], $10::int[], $11::text[], $12::int[], $13::int[], $14::text[])
         AS a("eventId", "eventType", sequence, attempt, outcome, "statusCode", "durationMs", excerpt)
     )
     UPDATE "EventSubscription" AS s SET
       "cursorXid" = COALESCE(s."rewindXid", $4::bigint), "cursorSeq" = COALESCE(s."rewindSeq", $5::bigint), "rewindXid" = NULL, "rewindSeq" = NULL,
       "nextSequence" = $6::bigint, "headSeq" = NULL, "headSequence" = NULL, "headAttempts" = 0,
       "failingSince" = NULL, "leaseUntil" = now() + $3 * interval '1 millisecond'
     FROM cur WHERE s.id = cur.id
     RETURNING cur.rewound, cur.enabled`,
    [id, token, leaseMs, through.xid, through.seq, through.nextSequence, ...attemptColumns(attempts)],
  );
  return row === undefined ? 'fenced' : row.rewound ? 'rewound' : row.enabled ? 'moved' : 'off';
}

/**
 * Not delivered: `head` becomes the event retried after `delayMs`, its attempts counted, and
 * the lease is let go. Failing for longer than `retryForMs` turns the subscription off (in
 * order, a later event cannot pass this one). Returns whether this write turned it off, and
 * since when it had failed.
 */
export async function headFailed(
  query: SqlQuery,
  id: string,
  token: string,
  head: { seq: string; sequence: number },
  delayMs: number,
  retryForMs: number,
): Promise<{ disabledNow: boolean; failingSince: Date | null } | undefined> {
  // A replay asked for while this deliverer held the lease is applied instead: the cursor goes
  // back, and the next claim starts there now, not after a backoff.
  const replay = `s."rewindXid" IS NOT NULL`;
  const stillTrying = `(${replay} OR COALESCE(s."failingSince", now()) > now() - $4 * interval '1 millisecond')`;
  const [row] = await query<{ disabledNow: boolean; failingSince: Date | null }>(
    `UPDATE "EventSubscription" AS s SET
       "headAttempts" = CASE WHEN ${replay} THEN 0 WHEN s."headSeq" = $5::bigint THEN s."headAttempts" + 1 ELSE 1 END,
       "headSeq" = CASE WHEN ${replay} THEN NULL ELSE $5::bigint END,
       "headSequence" = CASE WHEN ${replay} THEN NULL ELSE $6::bigint END,
       "cursorXid" = COALESCE(s."rewindXid", s."cursorXid"), "cursorSeq" = COALESCE(s."rewindSeq", s."cursorSeq"), "rewindXid" = NULL, "rewindSeq" = NULL,
       "failingSince" = CASE WHEN ${replay} THEN NULL ELSE COALESCE(s."failingSince", now()) END,
       "nextAttemptAt" = now() + CASE WHEN ${replay} THEN 0 ELSE $3 END * interval '1 millisecond',
       ${subscriptionSetSql([{ when: stillTrying, then: 'keep' }], { by: 'give-up' })},
       ${deliveryLetGoSql('retry')}
     WHERE s.id = $1::uuid AND s."leaseToken" = $2::uuid AND ${subscriptionIsSql(subscriptionStates.on, 's')}
     RETURNING ${subscriptionIsSql(subscriptionStates.off, 's')} AS "disabledNow", s."failingSince"`,
    [id, token, delayMs, retryForMs, head.seq, head.sequence],
  );
  return row;
}

/** Nothing to send now: the lease is let go and the subscription looked at again after `idleMs`. */
export async function releaseIdle(query: SqlQuery, id: string, token: string, idleMs: number): Promise<void> {
  await query(
    `UPDATE "EventSubscription" SET ${deliveryLetGoSql('release')},
       "nextAttemptAt" = now() + $3 * interval '1 millisecond'
     WHERE id = $1::uuid AND "leaseToken" = $2::uuid`,
    [id, token, idleMs],
  );
}
