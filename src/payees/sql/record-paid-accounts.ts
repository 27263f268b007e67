import { BatchItemStatus } from '../../db/generated/enums.ts';
import { sqlName } from '../../db/sql-list.ts';

/**
 * Writes "PayeeAccount" (its one owner: src/payees/) for rows that completed: per payee,
 * the account of its latest completed row, unless a later payment is already recorded.
 * A CTE for the statement that finishes batches (batch/lifecycle/sql/finish-batches.ts), so
 * that a batch finishes and its payees are remembered together or not at all
 * (docs/decisions/0024-payee-accounts.md). `finished` names a set with an `id` column of
 * batch ids.
 */
export function recordPaidAccountsCte(finished: string): string {
  return `
  INSERT INTO "PayeeAccount" ("payeeId", "accountKey", "lastPaidAt", "lastPaymentId", "updatedAt")
  SELECT DISTINCT ON (i."payeeId") i."payeeId", i."accountKey", COALESCE(i."finishedAt", now()), i."paymentId", now()
  FROM "BatchItem" AS i
  WHERE i."batchId" IN (SELECT id FROM ${finished}) AND i.status = ${sqlName(BatchItemStatus.COMPLETED)}
    AND i."payeeId" IS NOT NULL AND i."accountKey" IS NOT NULL
  ORDER BY i."payeeId", i."finishedAt" DESC NULLS LAST, i.id DESC
  ON CONFLICT ("payeeId") DO UPDATE
  SET "accountKey" = EXCLUDED."accountKey", "lastPaidAt" = EXCLUDED."lastPaidAt", "lastPaymentId" = EXCLUDED."lastPaymentId", "updatedAt" = now()
  WHERE "PayeeAccount"."lastPaidAt" <= EXCLUDED."lastPaidAt"`;
}
