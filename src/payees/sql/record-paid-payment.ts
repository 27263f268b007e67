import type { SqlQuery } from '../../db/database.ts';
import { TrackedStatus } from '../../db/generated/enums.ts';
import { sqlName } from '../../db/sql-list.ts';

/**
 * Writes "PayeeAccount" (its one owner: src/payees/) for a single payment just recorded
 * COMPLETED: its payee's account is the one it paid, unless a later payment is already
 * recorded. Run by the payment record's write (payments/payment-records.ts), in the
 * transaction that moves the payment to COMPLETED, so the payment being paid and its payee
 * being remembered commit together (docs/decisions/0024-payee-accounts.md).
 *
 * Batch rows are not written here: their payments carry no payee (the row does), and the
 * statement that finishes their batch remembers them (record-paid-accounts.ts). The time is
 * the database clock's, as a row's finishedAt is, so the two kinds compare on one clock.
 */
const sql = `
INSERT INTO "PayeeAccount" ("payeeId", "accountKey", "lastPaidAt", "lastPaymentId", "updatedAt")
SELECT p."payeeId", p."accountKey", now(), p."paymentId", now()
FROM "Payment" AS p
WHERE p."paymentId" = $1 AND p.status = ${sqlName(TrackedStatus.COMPLETED)} AND p."batchId" IS NULL
  AND p."payeeId" IS NOT NULL AND p."accountKey" IS NOT NULL
ON CONFLICT ("payeeId") DO UPDATE
SET "accountKey" = EXCLUDED."accountKey", "lastPaidAt" = EXCLUDED."lastPaidAt", "lastPaymentId" = EXCLUDED."lastPaymentId", "updatedAt" = now()
WHERE "PayeeAccount"."lastPaidAt" <= EXCLUDED."lastPaidAt"`;

export async function recordPaidPayment(query: SqlQuery, paymentId: string): Promise<void> {
  await query(sql, [paymentId]);
}
