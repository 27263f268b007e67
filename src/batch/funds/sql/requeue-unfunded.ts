import type { SqlQuery } from '../../../db/database.ts';
import { sqlList, sqlName } from '../../../db/sql-list.ts';
import { retriedPaymentIdSql } from '../../ids.ts';
import { batchStates, payingStates } from '../../states/batch-states.ts';
import { unfundedRowSql, waitingStatus } from '../../states/row-states.ts';
import { FUNDS } from './funds-reason.ts';

/**
 * FAILED-for-funds rows of paused-for-funds batches: a new attempt, PENDING. Exported because
 * pausing and resuming for funds requeue inside their own statements.
 */
export function requeueSql(batchIds: string): string {
  return `
  UPDATE "BatchItem" AS i
  SET attempt = attempt + 1, "paymentId" = ${retriedPaymentIdSql('"batchId"', 'line', '(attempt + 1)')}, status = ${sqlName(waitingStatus)}::"BatchItemStatus",
    "errorCode" = NULL, "errorMessage" = NULL, "billingDetails" = NULL, retries = 0, "notBefore" = NULL, "finishedAt" = NULL,
    "leaseOwner" = NULL, "leaseToken" = NULL, "leaseExpiresAt" = NULL, "updatedAt" = now()
  WHERE i."batchId" = ANY(${batchIds}) AND ${unfundedRowSql('i')}
    AND EXISTS (SELECT 1 FROM "Batch" AS b WHERE b.id = i."batchId" AND (b.status IN (${sqlList(payingStates)}) OR (b.status = ${sqlName(batchStates.paused)} AND b."pauseReason" = ${FUNDS})))
  RETURNING i.id`;
}

/** Rows that failed for funds in these (running or paused-for-funds) batches, put back to be paid. */
export async function requeueUnfunded(query: SqlQuery, batchIds: string[]): Promise<number> {
  return (await query(requeueSql('$1::text[]'), [batchIds])).length;
}
