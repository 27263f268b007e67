import type { SqlQuery } from '../../../db/database.ts';
import { sqlList, sqlName } from '../../../db/sql-list.ts';
import { retriedPaymentIdSql } from '../../ids.ts';
import { retryableItemStatuses, waitingStatus } from '../../states/row-states.ts';
import { repeatsPayingSql } from '../../rows/sql/hold-approved-repeats.ts';
import { outboxCte, sqlEventType } from '../../../outbound/index.ts';
import { SEALED } from '../../card-data.ts';

/**
 * The rows of batch `$1` that retryFailedItems pays again (`$2` the duplicate window in days):
 * FAILED or EXPIRED, still holding the sealed recipient, and not paid since by another batch.
 * The count the page and the CLI are offered (countRetryableRows) is the same predicate.
 */
const retryableRowSql = `"BatchItem"."batchId" = $1 AND "BatchItem".status IN (${sqlList(retryableItemStatuses)})
    AND ("BatchItem".fields -> '${SEALED}') IS NOT NULL AND NOT EXISTS (${repeatsPayingSql('$2')})`;

/**
 * A finished run's FAILED and EXPIRED rows wait to be paid again, in one statement for any
 * number of rows, each under its next attempt's paymentId (ids.ts). Only rows that still
 * hold their sealed recipient (card-data.ts), and whose payee no other approved batch has
 * paid the same amount since (hold-approved-repeats.ts). The worker checks each previous
 * payment is still unpaid before paying the row again.
 */
const sql = `
WITH retried AS (
  UPDATE "BatchItem"
  SET attempt = "BatchItem".attempt + 1, "paymentId" = ${retriedPaymentIdSql('"BatchItem"."batchId"', '"BatchItem".line', '("BatchItem".attempt + 1)')},
    status = ${sqlName(waitingStatus)}, "errorCode" = NULL, "errorMessage" = NULL, "billingDetails" = NULL, retries = 0, "notBefore" = NULL, "finishedAt" = NULL,
    "leaseOwner" = NULL, "leaseToken" = NULL, "leaseExpiresAt" = NULL, "updatedAt" = now()
  -- The row as it was: RETURNING names its earlier payment.
  FROM "BatchItem" AS was
  WHERE was.id = "BatchItem".id AND ${retryableRowSql}
  RETURNING "BatchItem"."batchId", "BatchItem".line, "BatchItem"."paymentId", was."paymentId" AS "previousPaymentId",
    was.status::text AS "previousStatus", "BatchItem".amount, "BatchItem".currency
),
-- Each row's earlier final event (batch_row.failed, or settled_by_review FAILED) is superseded
-- by a person's decision: the receiver learns it before the row's next outcome
-- (docs/decisions/0026-final-outcome-events.md).
${outboxCte(
  'retried_events',
  `SELECT ${sqlEventType('batch_row.retried')} AS type, r."paymentId" AS "subjectId",
     jsonb_build_object('batchId', r."batchId", 'line', r.line, 'paymentId', r."paymentId", 'previousPaymentId', r."previousPaymentId",
       'previousStatus', r."previousStatus", 'amount', r.amount::text, 'currency', r.currency, 'by', $3::text) AS data
   FROM retried AS r ORDER BY r.line`,
)}
SELECT count(*)::int AS count FROM retried`;

/** How many rows wait to be paid again; each is a batch_row.retried event naming `by`, committed with it. */
export async function retryFailedRows(query: SqlQuery, batchId: string, windowDays: number, by: string): Promise<number> {
  const rows = await query<{ count: number }>(sql, [batchId, windowDays, by]);
  return rows[0]?.count ?? 0;
}

const countSql = `SELECT count(*)::int AS count FROM "BatchItem" WHERE ${retryableRowSql}`;

/** How many rows retryFailedRows would pay again now: what Batch.actions offers RETRY_FAILED on. */
export async function countRetryableRows(query: SqlQuery, batchId: string, windowDays: number): Promise<number> {
  const rows = await query<{ count: number }>(countSql, [batchId, windowDays]);
  return rows[0]?.count ?? 0;
}
