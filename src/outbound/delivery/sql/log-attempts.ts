import type { SqlQuery } from '../../../db/database.ts';
import { attemptColumns, type Attempt } from './attempt-columns.ts';

/**
 * Attempts of one request (a list's events share its outcome), in one statement; `resend`
 * for an admin's resend outside the ordered stream. A window's delivered attempts are written
 * with its cursor instead (mark-window-delivered.ts).
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
