import type { SqlQuery } from '../../db/database.ts';
import { payingItemStatuses } from '../item-states.ts';

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
 * One indexed look-up (BatchItem.payeeKey) for a whole chunk of rows being imported: the
 * rows of other approved batches with any of these payees that paid or may still pay, in
 * flight whenever approved, or finished within the window. The importer compares amount
 * and reference in the process (batch/duplicate-rows.ts).
 */
const sql = `
SELECT i."payeeKey" AS "payeeKey", i.amount::text AS amount, i.reference, i."paymentId" AS "paymentId",
  i."batchId" AS "batchId", i.line, i.status::text AS status, COALESCE(i."finishedAt", b."approvedAt") AS at
FROM "BatchItem" AS i JOIN "Batch" AS b ON b.id = i."batchId"
WHERE i."payeeKey" = ANY($1::char(32)[])
  AND i."batchId" <> $2
  AND b."approvedAt" IS NOT NULL
  AND i.status = ANY($3::text[]::"BatchItemStatus"[])
  AND (i."finishedAt" IS NULL OR i."finishedAt" >= now() - $4 * interval '1 day')
ORDER BY b."approvedAt", i.line`;

export function findPayingRows(query: SqlQuery, payeeKeys: string[], options: { exceptBatchId: string; windowDays: number }): Promise<PayingRow[]> {
  if (payeeKeys.length === 0) return Promise.resolve([]);
  return query<PayingRow>(sql, [payeeKeys, options.exceptBatchId, payingItemStatuses, options.windowDays]);
}
