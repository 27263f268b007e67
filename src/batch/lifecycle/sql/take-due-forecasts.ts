import type { SqlQuery } from '../../../db/database.ts';
import { sqlName } from '../../../db/sql-list.ts';
import { batchStates } from '../batch-states.ts';

/**
 * Scheduled batches whose forecast is due (forecastAt reached on the database clock), taken
 * by one process: forecastAt is moved `holdMs` ahead in the same statement, so another
 * worker's sweep does not read it too; recordForecast clears it once read.
 */
export async function takeDueForecasts(query: SqlQuery, holdMs: number): Promise<Array<{ id: string; payAt: Date }>> {
  return query(
    `UPDATE "Batch" SET "forecastAt" = now() + $1 * interval '1 millisecond'
     WHERE status = ${sqlName(batchStates.scheduled)} AND "forecastAt" <= now()
     RETURNING id, "payAt"`,
    [holdMs],
  );
}

/** What the forecast found: the shortfall in minor units (null: covered), read now; no further read before release. */
export async function recordForecast(query: SqlQuery, batchId: string, shortfallMinor: bigint | null): Promise<void> {
  await query(
    `UPDATE "Batch" SET "forecastReadAt" = now(), "forecastShortfall" = $2::numeric / 100, "forecastAt" = NULL WHERE id = $1`,
    [batchId, shortfallMinor?.toString() ?? null],
  );
}
