import type { SqlQuery } from '../../db/database.ts';
import { missingUpstream, pairsSql, statusDiffers } from './pairs.ts';

/**
 * Payments whose difference may only be the list's timing: missing from a list read
 * while it moved, or a status read before the gateway (or the upstream) moved on. Each
 * is read once more (endpoint 8) before it is compared. Paged by paymentId.
 */
const sql = `
WITH ${pairsSql}
SELECT "paymentId" FROM pairs
WHERE (${missingUpstream} OR ${statusDiffers}) AND "paymentId" > $4
ORDER BY "paymentId"
LIMIT $5`;

export async function confirmCandidates(
  query: SqlQuery,
  run: { id: string; startsAt: Date; endsAt: Date },
  after: string,
  limit: number,
): Promise<string[]> {
  const rows = await query<{ paymentId: string }>(sql, [run.id, run.startsAt, run.endsAt, after, limit]);
  return rows.map((row) => row.paymentId);
}
