import type { SqlQuery } from '../../../db/database.ts';
import { TrackedStatus } from '../../../db/generated/enums.ts';
import { sqlList, sqlName } from '../../../db/sql-list.ts';
import { finalTracked } from '../../../payments/status.ts';
import { outboxCte } from '../../../outbound/index.ts';
import { rowStatesFrom } from '../../states/row-states.ts';
import { rowEventsSelect } from './row-events.ts';

/**
 * Rows whose payment a webhook (or a read-back, or a reconciliation) has already seen final take
 * that outcome without another upstream read: IN_PROGRESS, and EXECUTING or CREATING whose
 * worker's answer or write was lost (the row table's `settle` moves, row-states.ts). Rows a
 * worker holds are left to it; one whose lease lapsed is taken from it here, and the worker's
 * later writes, fenced by its lease token and the state it last wrote (move-items.ts), change
 * nothing. With paymentIds ($1), only their rows: the webhook intake settles the row of the
 * payment it was told of.
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
WHERE i.status IN (${sqlList(rowStatesFrom('settle'))}) AND p."paymentId" = i."paymentId" AND p.status IN (${sqlList([...finalTracked])})
  AND ($1::text[] IS NULL OR i."paymentId" = ANY($1::text[]))
  AND (i."leaseExpiresAt" IS NULL OR i."leaseExpiresAt" < now())
RETURNING i.id, i.status::text AS status, i."batchId", i.line, i."paymentId", i.amount, i.currency, i."errorCode", i."errorMessage", i.fields
), ${outboxCte('row_events', rowEventsSelect('settled', `(SELECT p.commission FROM "Payment" AS p WHERE p."paymentId" = r."paymentId")`))}
SELECT "batchId" FROM settled`;

/** Returns the batches that had rows settled. */
export async function settleFromPayments(query: SqlQuery, paymentIds: readonly string[] | null = null): Promise<string[]> {
  const rows = await query<{ batchId: string }>(sql, [paymentIds]);
  return [...new Set(rows.map((row) => row.batchId))];
}
