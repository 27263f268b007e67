import type { SqlQuery } from '../../../db/database.ts';

/** A subscription as a deliverer holds it: where it stands, and the token fencing its writes. */
export interface ClaimedSubscription {
  id: string;
  url: string;
  secret: unknown;
  previousSecret: unknown;
  previousValid: boolean;
  headSeq: string | null;
  headSequence: string | null;
  headAttempts: number;
  leaseToken: string;
}

/**
 * One statement, as rows are claimed (graphile-worker's way): enabled subscriptions whose
 * next attempt is due and whom no live lease holds, leased on the database's clock with a
 * new token, SKIP LOCKED so deliverers never wait on each other. One deliverer per
 * subscription at a time is what keeps its events in order.
 */
const sql = `
UPDATE "EventSubscription" AS s
SET "leaseOwner" = $1, "leaseToken" = gen_random_uuid(), "leaseUntil" = now() + $2 * interval '1 millisecond'
FROM (
  SELECT id FROM "EventSubscription"
  WHERE enabled AND "nextAttemptAt" <= now() AND ("leaseUntil" IS NULL OR "leaseUntil" < now())
  ORDER BY "nextAttemptAt"
  LIMIT $3
  FOR UPDATE SKIP LOCKED
) AS picked
WHERE s.id = picked.id
RETURNING s.id::text AS id, s.url, s.secret, s."previousSecret", (s."previousUntil" IS NOT NULL AND s."previousUntil" > now()) AS "previousValid",
  s."headSeq"::text AS "headSeq", s."headSequence"::text AS "headSequence", s."headAttempts", s."leaseToken"::text AS "leaseToken"`;

export function claimSubscriptions(query: SqlQuery, owner: string, leaseMs: number, limit: number): Promise<ClaimedSubscription[]> {
  return query<ClaimedSubscription>(sql, [owner, leaseMs, limit]);
}
