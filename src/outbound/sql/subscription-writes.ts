import type { SqlQuery } from '../../db/database.ts';
import { deliveryIsSql, deliveryStates } from '../delivery-states.ts';
import { subscriptionIsSql, subscriptionSetSql, subscriptionStates } from '../subscription-states.ts';

/** A subscription as admins see it (never its secret). */
export interface SubscriptionRow {
  id: string;
  url: string;
  types: string[];
  description: string;
  enabled: boolean;
  eventsPerRequest: number;
  disabledReason: string | null;
  disabledAt: Date | null;
  previousUntil: Date | null;
  createdAt: Date;
  createdBy: string;
  failingSince: Date | null;
  headAttempts: number;
  nextAttemptAt: Date;
  /** Events of its types not yet delivered (the head included). */
  backlog: number;
  /** When the oldest of those happened. */
  oldestUndeliveredAt: Date | null;
}

/** What the next events after a subscription's cursor are; only committed ones older than any running transaction. */
export const AFTER_CURSOR = `(e.xid, e.seq) > (s."cursorXid", s."cursorSeq") AND (cardinality(s.types) = 0 OR e.type = ANY(s.types))`;

const columns = `s.id::text AS id, s.url, s.types, s.description, s.enabled, s."eventsPerRequest", s."disabledReason", s."disabledAt", s."previousUntil",
  s."createdAt", s."createdBy", s."failingSince", s."headAttempts", s."nextAttemptAt",
  (SELECT count(*)::int FROM "OutboundEvent" AS e WHERE ${AFTER_CURSOR}) AS backlog,
  (SELECT min(e."occurredAt") FROM "OutboundEvent" AS e WHERE ${AFTER_CURSOR}) AS "oldestUndeliveredAt"`;

export function listSubscriptions(query: SqlQuery): Promise<SubscriptionRow[]> {
  return query<SubscriptionRow>(`SELECT ${columns} FROM "EventSubscription" AS s ORDER BY s."createdAt", s.id`, []);
}

export async function readSubscription(query: SqlQuery, id: string): Promise<SubscriptionRow | undefined> {
  const [row] = await query<SubscriptionRow>(`SELECT ${columns} FROM "EventSubscription" AS s WHERE s.id = $1::uuid`, [id]);
  return row;
}

/**
 * A new subscription starts after every event of transactions that ended before it: its
 * cursor is the oldest running transaction (pg_snapshot_xmin), so what commits from now on
 * reaches it and nothing older does.
 */
export async function insertSubscription(
  query: SqlQuery,
  s: { id: string; url: string; types: string[]; description: string; eventsPerRequest: number; secret: unknown; createdBy: string },
): Promise<string> {
  const [row] = await query<{ id: string }>(
    `INSERT INTO "EventSubscription" (id, url, types, description, "eventsPerRequest", secret, "createdBy", "cursorXid", "cursorSeq")
     VALUES ($6::uuid, $1, $2::text[], $3, $7, $4::jsonb, $5, (pg_snapshot_xmin(pg_current_snapshot())::text)::bigint, 0)
     RETURNING id::text AS id`,
    [s.url, s.types, s.description, JSON.stringify(s.secret), s.createdBy, s.id, s.eventsPerRequest],
  );
  return row!.id;
}

export async function updateSubscription(
  query: SqlQuery,
  id: string,
  change: {
    url?: string | undefined;
    types?: string[] | undefined;
    description?: string | undefined;
    eventsPerRequest?: number | undefined;
    enabled?: boolean | undefined;
    disabledReason?: string | undefined;
  },
): Promise<boolean> {
  const rows = await query(
    `UPDATE "EventSubscription" SET
       url = COALESCE($2, url), types = COALESCE($3::text[], types), description = COALESCE($4, description),
       "eventsPerRequest" = COALESCE($7, "eventsPerRequest"),
       ${subscriptionSetSql(
         [
           { when: '$5::boolean IS NULL', then: 'keep' },
           { when: '$5::boolean', then: { by: 'turn-on' } },
         ],
         { by: 'turn-off', reasonSql: '$6::text' },
       )},
       -- Enabled again: the head is tried now, and its failing time starts over.
       "nextAttemptAt" = CASE WHEN $5 THEN now() ELSE "nextAttemptAt" END,
       "failingSince" = CASE WHEN $5 THEN NULL ELSE "failingSince" END,
       "updatedAt" = now()
     WHERE id = $1::uuid RETURNING id`,
    [
      id,
      change.url ?? null,
      change.types ?? null,
      change.description ?? null,
      change.enabled ?? null,
      change.disabledReason ?? null,
      change.eventsPerRequest ?? null,
    ],
  );
  return rows.length === 1;
}

/** The new secret signs from now; the old one beside it until `overlapMs` has passed. */
export async function rotateSecret(query: SqlQuery, id: string, secret: unknown, overlapMs: number): Promise<Date | undefined> {
  const [row] = await query<{ previousUntil: Date }>(
    `UPDATE "EventSubscription" SET "previousSecret" = secret, secret = $2::jsonb,
       "previousUntil" = now() + $3 * interval '1 millisecond', "updatedAt" = now()
     WHERE id = $1::uuid RETURNING "previousUntil"`,
    [id, JSON.stringify(secret), overlapMs],
  );
  return row?.previousUntil;
}

export async function deleteSubscription(query: SqlQuery, id: string): Promise<boolean> {
  const rows = await query(`DELETE FROM "EventSubscription" WHERE id = $1::uuid RETURNING id`, [id]);
  return rows.length === 1;
}

/**
 * Every event since `since` again, in order: the cursor goes back to just before the first
 * event (in delivery order) that happened at or after it. While a deliverer holds the lease
 * the move waits for it (rewindXid): that deliverer sends the rest of its window, then writes
 * its sequence numbers as used and the cursor back, so replayed events never share a number
 * with one already sent and never arrive between its window's events. Returns how many events
 * of its types lie ahead of the new cursor, or undefined for no subscription.
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
         "rewindXid" = CASE WHEN ${leased} THEN target.xid END, "rewindSeq" = CASE WHEN ${leased} THEN target.seq END,
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

/** For each enabled subscription, when the oldest event it has not taken happened (null: none). */
export function undeliveredBySubscription(query: SqlQuery): Promise<Array<{ id: string; oldestAt: Date | null }>> {
  return query(
    `SELECT s.id::text AS id, (SELECT min(e."occurredAt") FROM "OutboundEvent" AS e WHERE ${AFTER_CURSOR}) AS "oldestAt"
     FROM "EventSubscription" AS s WHERE ${subscriptionIsSql(subscriptionStates.on, 's')}`,
    [],
  );
}
