import type { SqlQuery } from '../../../db/database.ts';
import type { BatchItemStatus } from '../../../db/generated/enums.ts';

export interface RowsOfStatus {
  status: BatchItemStatus;
  count: number;
  /** Decimal string, never a float. */
  amount: string;
  /** Of these, rows finished in the last `recentSeconds`. */
  recent: number;
  /** The database's clock, the same in every group. */
  now: Date;
}

/** A batch's rows per status with their sum: what its progress is drawn from (batch-service.ts progress). */
const sql = `
SELECT status, count(*)::int AS count, sum(amount)::text AS amount,
  count(*) FILTER (WHERE "finishedAt" >= now() - $2 * interval '1 second')::int AS recent, now() AS now
FROM "BatchItem" WHERE "batchId" = $1 GROUP BY status`;

export async function countRowsByStatus(query: SqlQuery, batchId: string, recentSeconds: number): Promise<RowsOfStatus[]> {
  return query<RowsOfStatus>(sql, [batchId, recentSeconds]);
}
