import type { SqlQuery } from '../../../db/database.ts';
import { sqlList } from '../../../db/sql-list.ts';
import { unsentItemStatuses } from '../../states/row-states.ts';

/**
 * A row whose attempt waits to send again says why and until when, in its state as it is
 * (issue 38: two rows sat "Creating" through a partner outage with no word, since the
 * breaker opens only after 12 failed calls and an attempt retries within itself for up to a
 * minute). Only the error and notBefore change, and only while this worker holds the row
 * (its lease token); the row's next move writes both again.
 */
const sql = `
UPDATE "BatchItem" SET "errorCode" = $3, "errorMessage" = $4, "notBefore" = now() + $5 * interval '1 millisecond'
WHERE id = $1::bigint AND "leaseToken" = $2::uuid AND status IN (${sqlList(unsentItemStatuses)})`;

export async function noteRetry(
  query: SqlQuery,
  row: { id: string; leaseToken: string },
  error: { code: string; message: string },
  delayMs: number,
): Promise<void> {
  await query(sql, [row.id, row.leaseToken, error.code, error.message, Math.round(delayMs)]);
}
