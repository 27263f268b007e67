import type { SqlQuery } from '../../../db/database.ts';
import { AFTER_CURSOR } from '../../sql/subscription-writes.ts';

/** The event a subscription delivers next, as stored. */
export interface HeadEvent {
  seq: string;
  id: string;
  type: string;
  subjectId: string;
  occurredAt: Date;
  data: Record<string, unknown>;
}

/** The head and the secrets as they stand when it is taken: a rotation signs the very next event. */
export interface NextHead {
  event: HeadEvent;
  sequence: string;
  signing: { secret: unknown; previousSecret: unknown; previousValid: boolean };
}

const eventColumns = `e.seq::text AS seq, e.id::text AS id, e.type, e."subjectId", e."occurredAt", e.data`;

/**
 * The next event after the cursor becomes the head, with the next sequence number; fenced by
 * the lease token. Only events of transactions older than every running one are taken
 * (pg_snapshot_xmin): one still running may yet commit an event that sorts before.
 */
export async function takeNextHead(query: SqlQuery, id: string, token: string): Promise<NextHead | undefined> {
  const [row] = await query<HeadEvent & NextHead['signing'] & { sequence: string }>(
    `WITH next AS (
       SELECT e.* FROM "OutboundEvent" AS e, "EventSubscription" AS s
       WHERE s.id = $1::uuid AND ${AFTER_CURSOR}
         AND e.xid < (pg_snapshot_xmin(pg_current_snapshot())::text)::bigint
       ORDER BY e.xid, e.seq LIMIT 1
     ), head AS (
       UPDATE "EventSubscription" AS s SET "headSeq" = next.seq, "headSequence" = s."nextSequence", "headAttempts" = 0
       FROM next WHERE s.id = $1::uuid AND s."leaseToken" = $2::uuid
       RETURNING s."headSequence", s.secret, s."previousSecret", (s."previousUntil" IS NOT NULL AND s."previousUntil" > now()) AS "previousValid"
     )
     SELECT ${eventColumns}, head."headSequence"::text AS sequence, head.secret, head."previousSecret", head."previousValid" FROM next AS e, head`,
    [id, token],
  );
  if (row === undefined) return undefined;
  return {
    event: { seq: row.seq, id: row.id, type: row.type, subjectId: row.subjectId, occurredAt: row.occurredAt, data: row.data },
    sequence: row.sequence,
    signing: { secret: row.secret, previousSecret: row.previousSecret, previousValid: row.previousValid },
  };
}

export async function readEvent(query: SqlQuery, seq: string): Promise<HeadEvent | undefined> {
  const [row] = await query<HeadEvent>(`SELECT ${eventColumns} FROM "OutboundEvent" AS e WHERE e.seq = $1::bigint`, [seq]);
  return row;
}

export async function readEventById(query: SqlQuery, id: string): Promise<HeadEvent | undefined> {
  const [row] = await query<HeadEvent>(`SELECT ${eventColumns} FROM "OutboundEvent" AS e WHERE e.id = $1::uuid`, [id]);
  return row;
}

/** A 2xx: the cursor moves past the head, the sequence on, the lease is renewed for the next one. */
export async function headDelivered(query: SqlQuery, id: string, token: string, leaseMs: number): Promise<boolean> {
  const rows = await query(
    `UPDATE "EventSubscription" AS s SET
       ("cursorXid", "cursorSeq") = (SELECT e.xid, e.seq FROM "OutboundEvent" AS e WHERE e.seq = s."headSeq"),
       "nextSequence" = s."headSequence" + 1, "headSeq" = NULL, "headSequence" = NULL, "headAttempts" = 0,
       "failingSince" = NULL, "leaseUntil" = now() + $3 * interval '1 millisecond'
     WHERE s.id = $1::uuid AND s."leaseToken" = $2::uuid AND s."headSeq" IS NOT NULL
     RETURNING s.id`,
    [id, token, leaseMs],
  );
  return rows.length === 1;
}

/**
 * Not delivered: the head waits `delayMs` and the lease is let go. Failing for longer than
 * `retryForMs` turns the subscription off (in order, a later event cannot pass this one).
 * Returns whether this write turned it off, and since when it had failed.
 */
export async function headFailed(
  query: SqlQuery,
  id: string,
  token: string,
  delayMs: number,
  retryForMs: number,
): Promise<{ disabledNow: boolean; failingSince: Date } | undefined> {
  const stillTrying = `COALESCE(s."failingSince", now()) > now() - $4 * interval '1 millisecond'`;
  const [row] = await query<{ disabledNow: boolean; failingSince: Date }>(
    `UPDATE "EventSubscription" AS s SET
       "headAttempts" = s."headAttempts" + 1,
       "failingSince" = COALESCE(s."failingSince", now()),
       "nextAttemptAt" = now() + $3 * interval '1 millisecond',
       enabled = ${stillTrying},
       "disabledAt" = CASE WHEN ${stillTrying} THEN NULL ELSE now() END,
       "disabledReason" = CASE WHEN ${stillTrying} THEN NULL ELSE 'failing' END,
       "leaseOwner" = NULL, "leaseToken" = NULL, "leaseUntil" = NULL
     WHERE s.id = $1::uuid AND s."leaseToken" = $2::uuid AND s.enabled
     RETURNING NOT s.enabled AS "disabledNow", s."failingSince"`,
    [id, token, delayMs, retryForMs],
  );
  return row;
}

/** Nothing to send now: the lease is let go and the subscription looked at again after `idleMs`. */
export async function releaseIdle(query: SqlQuery, id: string, token: string, idleMs: number): Promise<void> {
  await query(
    `UPDATE "EventSubscription" SET "leaseOwner" = NULL, "leaseToken" = NULL, "leaseUntil" = NULL,
       "nextAttemptAt" = now() + $3 * interval '1 millisecond'
     WHERE id = $1::uuid AND "leaseToken" = $2::uuid`,
    [id, token, idleMs],
  );
}

/**
 * A 2xx, in one statement: the attempt logged, the cursor past the head, and the next event
 * (if one is ready) made the head with the next sequence number, the lease renewed. The
 * common case of a receiver keeping up costs one round trip per event.
 */
export async function deliveredAndNext(
  query: SqlQuery,
  id: string,
  token: string,
  leaseMs: number,
  attempt: { eventId: string; eventType: string; sequence: string; attempt: number; statusCode: number | null; durationMs: number; excerpt: string | null },
): Promise<{ moved: boolean; next: NextHead | undefined }> {
  const [row] = await query<Partial<HeadEvent> & { moved: boolean; sequence: string | null } & NextHead['signing']>(
    `WITH cur AS (
       SELECT s.id, s."headSequence", s.types, e.xid, e.seq FROM "EventSubscription" AS s JOIN "OutboundEvent" AS e ON e.seq = s."headSeq"
       WHERE s.id = $1::uuid AND s."leaseToken" = $2::uuid
     ), next AS (
       SELECT e.* FROM "OutboundEvent" AS e, cur
       WHERE (e.xid, e.seq) > (cur.xid, cur.seq) AND (cardinality(cur.types) = 0 OR e.type = ANY(cur.types))
         AND e.xid < (pg_snapshot_xmin(pg_current_snapshot())::text)::bigint
       ORDER BY e.xid, e.seq LIMIT 1
     ), logged AS (
       INSERT INTO "EventDeliveryAttempt" ("subscriptionId", "eventId", "eventType", sequence, attempt, outcome, "statusCode", "durationMs", excerpt, resend)
       SELECT cur.id, $4::uuid, $5, $6::bigint, $7, 'delivered', $8, $9, $10, false FROM cur
     ), moved AS (
       UPDATE "EventSubscription" AS s SET
         "cursorXid" = cur.xid, "cursorSeq" = cur.seq, "nextSequence" = cur."headSequence" + 1,
         "headSeq" = (SELECT seq FROM next), "headSequence" = CASE WHEN EXISTS (SELECT 1 FROM next) THEN cur."headSequence" + 1 END,
         "headAttempts" = 0, "failingSince" = NULL, "leaseUntil" = now() + $3 * interval '1 millisecond'
       FROM cur WHERE s.id = cur.id
       RETURNING s."headSequence", s.secret, s."previousSecret", (s."previousUntil" IS NOT NULL AND s."previousUntil" > now()) AS "previousValid"
     )
     SELECT true AS moved, moved."headSequence"::text AS sequence, moved.secret, moved."previousSecret", moved."previousValid",
       ${eventColumns.replaceAll('e.', 'n.')}
     FROM moved LEFT JOIN next AS n ON true`,
    [id, token, leaseMs, attempt.eventId, attempt.eventType, attempt.sequence, attempt.attempt, attempt.statusCode, attempt.durationMs, attempt.excerpt],
  );
  if (row === undefined) return { moved: false, next: undefined };
  if (row.seq === null || row.seq === undefined || row.sequence === null) return { moved: true, next: undefined };
  return {
    moved: true,
    next: {
      event: { seq: row.seq, id: row.id!, type: row.type!, subjectId: row.subjectId!, occurredAt: row.occurredAt!, data: row.data! },
      sequence: row.sequence,
      signing: { secret: row.secret, previousSecret: row.previousSecret, previousValid: row.previousValid },
    },
  };
}
