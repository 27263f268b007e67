import type { SqlQuery } from '../../../db/database.ts';

/** Heartbeat: extends the leases this worker still holds; returns the ids it still holds. */
const sql = `
UPDATE "BatchItem" AS i SET "leaseExpiresAt" = now() + $3 * interval '1 millisecond'
FROM unnest($1::bigint[], $2::uuid[]) AS t(id, token)
WHERE i.id = t.id AND i."leaseToken" = t.token
RETURNING i.id::text AS id`;

export async function renewLeases(
  query: SqlQuery,
  items: Array<{ id: string; leaseToken: string }>,
  leaseMs: number,
): Promise<Set<string>> {
  if (items.length === 0) return new Set();
  const rows = await query<{ id: string }>(sql, [items.map((item) => item.id), items.map((item) => item.leaseToken), leaseMs]);
  return new Set(rows.map((row) => row.id));
}
