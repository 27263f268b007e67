import type { SqlQuery } from '../../db/database.ts';

export interface RowSet {
  /**
   * md5 of the rows' ids, amounts, attempts and states, in id order: a different set, a
   * changed amount, the same rows failed (paid again) rather than waiting (paid first), or
   * in a later round of retries, is a different fingerprint.
   */
  fingerprint: string;
  rows: number;
  /** Decimal strings, never floats. */
  total: string;
  largest: string;
}

/**
 * The rows an approval would pay, as the tiers read them: those in the statuses given, and
 * the held rows it releases by id (which ones is the payees' and batch rooms' rule, read by
 * the caller). The statuses come from the caller's state table (batch/states/row-states.ts),
 * bound as a parameter, so no state name is typed here.
 */
const sql = `
SELECT coalesce(md5(string_agg(id::text || ':' || amount::text || ':' || attempt::text || ':' || status::text, ',' ORDER BY id)), md5('')) AS fingerprint,
  count(*)::int AS rows, coalesce(sum(amount), 0)::text AS total, coalesce(max(amount), 0)::text AS largest
FROM "BatchItem" WHERE "batchId" = $1 AND (status::text = ANY($2::text[]) OR id = ANY($3::bigint[]))`;

export async function readRowSet(
  query: SqlQuery,
  batchId: string,
  statuses: readonly string[],
  alsoIds: readonly bigint[] = [],
): Promise<RowSet> {
  const [row] = await query<RowSet>(sql, [batchId, [...statuses], alsoIds.map(String)]);
  return row!;
}
