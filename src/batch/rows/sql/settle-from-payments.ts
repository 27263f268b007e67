import type { SqlQuery } from '../../../db/database.ts';
import { BatchItemStatus, TrackedStatus } from '../../../db/generated/enums.ts';
import { sqlList, sqlName } from '../../../db/sql-list.ts';
import { finalTracked } from '../../../payments/status.ts';
import { outboxCte } from '../../../outbound/index.ts';
import { rowEventsSelect } from './row-events.ts';

/**
 * IN_PROGRESS rows whose payment a webhook (or a read-back, or a reconciliation) has already seen final take
 * that outcome without another upstream read. Rows leased by a worker are left to it.
 */
const sql = `
WITH settled AS (
UPDATE "BatchItem" AS i
SET status = p.status::text::"BatchItemStatus", "errorCode" = p."errorCode", "errorMessage" = p."errorMessage",
  "billingDetails" = COALESCE(p."billingDetails", i."billingDetails"), "finishedAt" = now(), "notBefore" = NULL,
  -- Paid: the sealed recipient is dropped (card-data.ts); FAILED and EXPIRED may be paid again.
  fields = CASE WHEN p.status = ${sqlName(TrackedStatus.COMPLETED)} THEN i.fields - '$sealed'::text ELSE i.fields END,
  "leaseOwner" = NULL, "leaseToken" = NULL, "leaseExpiresAt" = NULL, "updatedAt" = now()
FROM "Payment" AS p
WHERE i.status = ${sqlName(BatchItemStatus.IN_PROGRESS)} AND p."paymentId" = i."paymentId" AND p.status IN (${sqlList([...finalTracked])})
  AND (i."leaseExpiresAt" IS NULL OR i."leaseExpiresAt" < now())
RETURNING i.id, i.status::text AS status, i."batchId", i.line, i."paymentId", i.amount, i.currency, i."errorCode", i."errorMessage", i.fields
), ${outboxCte('row_events', rowEventsSelect('settled', `(SELECT p.commission FROM "Payment" AS p WHERE p."paymentId" = r."paymentId")`))}
SELECT "batchId" FROM settled`;

/** Returns the batches that had rows settled. */
export async function settleFromPayments(query: SqlQuery): Promise<string[]> {
  const rows = await query<{ batchId: string }>(sql, []);
  return [...new Set(rows.map((row) => row.batchId))];
}
