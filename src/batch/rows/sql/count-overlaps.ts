import type { SqlQuery } from '../../../db/database.ts';

/** Another batch whose rows a batch's held rows repeat, with how many and how much. */
export interface BatchOverlap {
  batchId: string;
  rows: number;
  /** Decimal string, never a float. */
  amount: string;
}

/**
 * The batch's rows held because they repeat a row of another batch ("duplicateOf", written
 * by the import and by hold-approved-repeats.ts), counted and summed per other batch, in
 * batch id order. Rows repeating an earlier row of the same file are not counted.
 */
const sql = `
SELECT e."batchId" AS "batchId", count(*)::int AS rows, sum(i.amount)::text AS amount
FROM "BatchItem" AS i JOIN "BatchItem" AS e ON e."paymentId" = i."duplicateOf"
WHERE i."batchId" = $1 AND e."batchId" <> $1
GROUP BY e."batchId" ORDER BY e."batchId"`;

export async function countOverlaps(query: SqlQuery, batchId: string): Promise<BatchOverlap[]> {
  return query<BatchOverlap>(sql, [batchId]);
}
