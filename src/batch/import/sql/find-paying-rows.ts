import type { SqlQuery } from '../../../db/database.ts';
import { payingItemStatuses } from '../../states/row-states.ts';

/** A row of an approved batch that has paid, or may still pay, its payee. */
export interface PayingRow {
  payeeKey: string;
  /** numeric(18,2) as text: "300.00". */
  amount: string;
  reference: string | null;
  paymentId: string;
  batchId: string;
  line: number;
  status: string;
  /** When it was paid or ended; for rows still in flight, when their batch was approved. */
  at: Date;
}

/**
 * One indexed look-up (ApprovedPayee, written at each approval) for a whole chunk of rows
 * being imported: the rows of other approved batches with any of these payees that paid or may still pay, in
 * flight whenever approved, or finished within the window. The importer compares amount
 * and reference in the process (batch/import/held-rows.ts). The importer asks only once
 * another batch was approved (OTHERS_APPROVED, read with the import's heartbeat): a
 * round trip per chunk on the write path stalled the import's pipeline (docs/internals/benchmarks/held-rows-later.md,
 * import). The EXISTS is checked once, before anything else, for the same reason: PGlite's
 * plan probed all 2,000 keys in every chunk, about 11 µs a row. The keys come as one
 * text (hex, so a comma cannot be in one) split behind a sub-select: as an array constant
 * the planner weighed each of the 2,000 keys (1.4 ms of planning a chunk on PostgreSQL
 * against 0.5 ms), and PGlite's driver and parser took twice as long over it.
 */
const sql = `
SELECT i."payeeKey" AS "payeeKey", i.amount::text AS amount, i.reference, i."paymentId" AS "paymentId",
  i."batchId" AS "batchId", i.line, i.status::text AS status, COALESCE(i."finishedAt", b."approvedAt") AS at
FROM "ApprovedPayee" AS a JOIN "BatchItem" AS i ON i.id = a."itemId" JOIN "Batch" AS b ON b.id = i."batchId"
WHERE a."payeeKey" = ANY((SELECT string_to_array($1, ','))::char(32)[])
  AND i."batchId" <> $2
  AND b."approvedAt" IS NOT NULL
  AND i.status = ANY($3::text[]::"BatchItemStatus"[])
  AND (i."finishedAt" IS NULL OR i."finishedAt" >= now() - $4 * interval '1 day')
  AND EXISTS (SELECT 1 FROM "Batch" WHERE "approvedAt" IS NOT NULL AND id <> $2)
ORDER BY b."approvedAt", i.line`;

/**
 * Whether any batch other than `$1` was ever approved: until one was, no row can repeat
 * a payment and the chunks are not looked up. A column expression, so that the import's
 * heartbeat reads it in the same statement.
 */
export const OTHERS_APPROVED = `EXISTS (SELECT 1 FROM "Batch" WHERE "approvedAt" IS NOT NULL AND id <> $1)`;

export async function othersApproved(query: SqlQuery, exceptBatchId: string): Promise<boolean> {
  const [row] = await query<{ approved: boolean }>(`SELECT ${OTHERS_APPROVED} AS approved`, [exceptBatchId]);
  return row?.approved === true;
}

export function findPayingRows(
  query: SqlQuery,
  payeeKeys: string[],
  options: { exceptBatchId: string; windowDays: number },
): Promise<PayingRow[]> {
  if (payeeKeys.length === 0) return Promise.resolve([]);
  return query<PayingRow>(sql, [payeeKeys.join(','), options.exceptBatchId, payingItemStatuses, options.windowDays]);
}
