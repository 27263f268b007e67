import type { SqlQuery } from '../../../db/database.ts';
import { sqlName } from '../../../db/sql-list.ts';
import { batchStates } from '../../states/batch-states.ts';
import { FUNDS } from './funds-reason.ts';

/** Still short: what is missing now, and when to look again. */
export async function stillShort(query: SqlQuery, batchId: string, shortfallMinor: bigint | null, nextCheckMs: number): Promise<void> {
  await query(
    `UPDATE "Batch" SET shortfall = COALESCE($2::numeric / 100, shortfall), "fundsCheckAt" = now() + $3 * interval '1 millisecond'
     WHERE id = $1 AND status = ${sqlName(batchStates.paused)} AND "pauseReason" = ${FUNDS}`,
    [batchId, shortfallMinor?.toString() ?? null, nextCheckMs],
  );
}
