import type { SqlQuery } from '../../../db/database.ts';
import { sqlName } from '../../../db/sql-list.ts';
import { cancelCodes, cancelledAfterCreateMessageSql, cancelledAtOnce, cancelledStatus } from '../../states/row-states.ts';

/**
 * At a cancel, the batch's rows created upstream and not executed (READY) end CANCELLED,
 * their message naming when the payment expires there (from its record); the gateway
 * refuses to execute them (payments/payment-service.ts). Rows being created or executed
 * now are the worker's to end (rows/sql/move-items.ts).
 */
const sql = `
WITH cancelled AS (
  UPDATE "BatchItem" AS i SET status = ${sqlName(cancelledStatus)}, "errorCode" = $2,
    "errorMessage" = ${cancelledAfterCreateMessageSql('p."expiresAt"')}, "finishedAt" = now(), "updatedAt" = now()
  FROM "BatchItem" AS r LEFT JOIN "Payment" AS p ON p."paymentId" = r."paymentId"
  WHERE r.id = i.id AND i."batchId" = $1 AND i.status = ${sqlName(cancelledAtOnce.afterCreate)}
  RETURNING 1
)
SELECT count(*)::int AS count FROM cancelled`;

/** How many rows it cancelled. */
export async function cancelCreatedRows(query: SqlQuery, batchId: string): Promise<number> {
  const rows = await query<{ count: number }>(sql, [batchId, cancelCodes.afterCreate]);
  return rows[0]?.count ?? 0;
}
