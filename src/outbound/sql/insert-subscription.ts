import type { SqlQuery } from '../../db/database.ts';

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
