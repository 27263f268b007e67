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
