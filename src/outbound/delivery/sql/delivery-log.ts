import type { SqlQuery } from '../../../db/database.ts';

export interface AttemptRow {
  id: string;
  subscriptionId: string;
  eventId: string;
  eventType: string;
  sequence: string;
  attempt: number;
  at: Date;
  outcome: string;
  statusCode: number | null;
  durationMs: number;
  excerpt: string | null;
  resend: boolean;
}

/** A delivery attempt as the log keeps it. */
export interface Attempt {
  eventId: string;
  eventType: string;
  sequence: number;
  attempt: number;
  outcome: string;
  statusCode: number | null;
  durationMs: number;
  excerpt: string | null;
}

/**
 * Attempts of one request (a list's events share its outcome), in one statement; `resend`
 * for an admin's resend outside the ordered stream. A window's delivered attempts are written
 * with its cursor instead (window-writes.ts).
 */
export async function logAttempts(query: SqlQuery, subscriptionId: string, attempts: readonly Attempt[], resend = false): Promise<void> {
  await query(
    `INSERT INTO "EventDeliveryAttempt" ("subscriptionId", "eventId", "eventType", sequence, attempt, outcome, "statusCode", "durationMs", excerpt, resend)
     SELECT $1::uuid, a."eventId", a."eventType", a.sequence, a.attempt, a.outcome, a."statusCode", a."durationMs", a.excerpt, $10
     FROM unnest($2::uuid[], $3::text[], $4::bigint[], $5::int[], $6::text[], $7::int[], $8::int[], $9::text[])
       AS a("eventId", "eventType", sequence, attempt, outcome, "statusCode", "durationMs", excerpt)`,
    [subscriptionId, ...attemptColumns(attempts), resend],
  );
}

/** Attempts as the column arrays unnest takes, in the order of logAttempts' and windowDelivered's statements. */
export function attemptColumns(attempts: readonly Attempt[]): unknown[] {
  return [
    attempts.map((a) => a.eventId),
    attempts.map((a) => a.eventType),
    attempts.map((a) => a.sequence),
    attempts.map((a) => a.attempt),
    attempts.map((a) => a.outcome),
    attempts.map((a) => a.statusCode),
    attempts.map((a) => a.durationMs),
    attempts.map((a) => a.excerpt),
  ];
}

const columns = `id::text AS id, "subscriptionId"::text AS "subscriptionId", "eventId"::text AS "eventId", "eventType", sequence::text AS sequence,
  attempt, at, outcome, "statusCode", "durationMs", excerpt, resend`;

/** The newest attempts first; `before` pages back (an attempt id). */
export function listAttempts(query: SqlQuery, subscriptionId: string, limit: number, before: string | null): Promise<AttemptRow[]> {
  return query<AttemptRow>(
    `SELECT ${columns} FROM "EventDeliveryAttempt" WHERE "subscriptionId" = $1::uuid AND ($3::bigint IS NULL OR id < $3::bigint)
     ORDER BY "EventDeliveryAttempt".id DESC LIMIT $2`,
    [subscriptionId, limit, before],
  );
}

/** The sequence number an event was first sent to a subscription with (a resend keeps it). */
export async function sentSequence(query: SqlQuery, subscriptionId: string, eventId: string): Promise<string | undefined> {
  const [row] = await query<{ sequence: string }>(
    `SELECT sequence::text AS sequence FROM "EventDeliveryAttempt" WHERE "subscriptionId" = $1::uuid AND "eventId" = $2::uuid ORDER BY id LIMIT 1`,
    [subscriptionId, eventId],
  );
  return row?.sequence;
}

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

/** Attempts older than the retention, and events every subscription is past and older than it. */
export async function pruneDeliveryLog(query: SqlQuery, retentionMs: number): Promise<void> {
  await query(`DELETE FROM "EventDeliveryAttempt" WHERE at < now() - $1 * interval '1 millisecond'`, [retentionMs]);
  await query(
    `DELETE FROM "OutboundEvent" AS e WHERE e."occurredAt" < now() - $1 * interval '1 millisecond'
       AND NOT EXISTS (SELECT 1 FROM "EventSubscription" AS s WHERE (e.xid, e.seq) > (s."cursorXid", s."cursorSeq"))`,
    [retentionMs],
  );
}
