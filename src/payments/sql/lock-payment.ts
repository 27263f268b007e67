import type { SqlQuery } from '../../db/database.ts';
import type { TrackedStatus } from '../../db/generated/enums.ts';

/**
 * A payment's record locked until the caller's transaction ends, so that changes of one
 * payment are serialised (payment-records.ts): its status now, or undefined when the
 * payment is not recorded.
 */
const sql = `SELECT status FROM "Payment" WHERE "paymentId" = $1 FOR UPDATE`;

export async function lockPayment(query: SqlQuery, paymentId: string): Promise<{ status: TrackedStatus } | undefined> {
  const rows = await query<{ status: TrackedStatus }>(sql, [paymentId]);
  return rows[0];
}
