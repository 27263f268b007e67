import type { SqlQuery } from '../../../db/database.ts';
import { sqlList, sqlName } from '../../../db/sql-list.ts';
import { retriedPaymentIdSql } from '../../ids.ts';
import { retryableItemStatuses, waitingStatus } from '../../rows/row-states.ts';
import { repeatsPayingSql } from '../../rows/sql/hold-approved-repeats.ts';

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
  SET attempt = attempt + 1, "paymentId" = ${retriedPaymentIdSql('"batchId"', 'line', '(attempt + 1)')}, status = ${sqlName(waitingStatus)},
    "errorCode" = NULL, "errorMessage" = NULL, "billingDetails" = NULL, retries = 0, "notBefore" = NULL, "finishedAt" = NULL,
    "leaseOwner" = NULL, "leaseToken" = NULL, "leaseExpiresAt" = NULL, "updatedAt" = now()
  WHERE "batchId" = $1 AND status IN (${sqlList(retryableItemStatuses)}) AND (fields -> '$sealed') IS NOT NULL
    AND NOT EXISTS (${repeatsPayingSql('$2')})
  RETURNING 1
)
SELECT count(*)::int AS count FROM retried`;

/** How many rows wait to be paid again. */
export async function retryFailedRows(query: SqlQuery, batchId: string, windowDays: number): Promise<number> {
  const rows = await query<{ count: number }>(sql, [batchId, windowDays]);
  return rows[0]?.count ?? 0;
}
